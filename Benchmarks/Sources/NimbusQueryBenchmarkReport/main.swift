import BenchmarkScenarios
import Foundation
import QueryScenarios

// Runs the query, batch and history scenarios for Nimbus, raw SQLite C and GRDB side by side
// in one process: per contender a warm-up run, then the median of N timed runs
// (ContinuousClock); prints one Markdown table per scenario with the ratio to the fastest.
//
//     swift run -c release NimbusQueryBenchmarkReport [--runs N] [--only indexedFetch|groupByCount|batchUpdate|batchDelete|historyOnSave|historyRead
//         |graphPrefetch|graphFaults|graphManyPrefetch|graphManyFaults|graphRepeat|textContains|textContainsAccented|textBeginsWith
//         |textEquals|textLike|singleSaves|growth50k|growth1M
//         |boundingBox10k|boundingBox100k|boundingBox1000k|searchFTS|searchContains|searchIndexing] [--divide 10]

var runsOverride: Int?
var divisor = 1
var only: Set<String> = []
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--runs": runsOverride = Int(arguments.next() ?? "")
    case "--divide": divisor = Int(arguments.next() ?? "") ?? 1
    case "--only": only.insert(arguments.next() ?? "")
    default:
        FileHandle.standardError.write(Data("unknown argument \(argument)\n".utf8))
        exit(2)
    }
}

func milliseconds(_ duration: Duration) -> Double { ReportFormatting.milliseconds(duration) }
func median(_ values: [Double]) -> Double { ReportFormatting.median(values) }
func grouped(_ value: Int) -> String { ReportFormatting.grouped(value) }

func format(_ value: Double) -> String { String(format: value < 10 ? "%.3f" : "%.1f", value) }

func log(_ line: String) { FileHandle.standardError.write(Data((line + "\n").utf8)) }

let fixtures = try QueryFixtures(divisor: divisor)
let clock = ContinuousClock()
// Globals are never deinitialized, so the scratch folder (fixtures up to ~100 MB) is removed
// here, also when a check fails.
func removeScratch() { try? FileManager.default.removeItem(at: fixtures.scratch.url) }
do {
    for scenario in QueryScenario.all where only.isEmpty || only.contains(scenario.key) {
        let runs = runsOverride ?? scenario.runs
        var results: [(name: String, rows: Int, median: Double, min: Double, max: Double, p99: Double)] = []
        for benchmarkCase in try scenario.makeCases(fixtures) {
            var times: [Double] = []
            for iteration in 0...runs {
                try benchmarkCase.prepare()
                let elapsed = try clock.measure { try benchmarkCase.run() }
                try benchmarkCase.verify()
                if iteration > 0 { times.append(milliseconds(elapsed)) }  // iteration 0 warms up
            }
            let sorted = times.sorted()
            let p99 = sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.99).rounded(.up)) - 1)]
            results.append((benchmarkCase.contender, benchmarkCase.rows, median(times), times.min()!, times.max()!, p99))
            log("\(scenario.key) / \(benchmarkCase.contender): \(times.map(format).joined(separator: " ")) ms")
        }
        let fastest = results.map(\.median).min()!
        print("### \(scenario.title)\n")
        let p99Header = scenario.percentiles ? " p99 (ms) |" : ""
        print("| contender | size (rows) | time (median of \(runs), ms) |\(p99Header) min–max (ms) | ratio to fastest |")
        print("| --- | ---: | ---: |" + (scenario.percentiles ? " ---: |" : "") + " ---: | ---: |")
        for result in results {
            let p99 = scenario.percentiles ? " \(format(result.p99)) |" : ""
            print("| \(result.name) | \(grouped(result.rows)) | \(format(result.median)) |\(p99) \(format(result.min))–\(format(result.max)) | \(String(format: "%.2f", result.median / fastest))× |")
        }
        if let target = scenario.target { print("\nTarget: \(target)") }
        print("")
    }
} catch {
    log("failed: \(error)")
    removeScratch()
    exit(1)
}
removeScratch()
