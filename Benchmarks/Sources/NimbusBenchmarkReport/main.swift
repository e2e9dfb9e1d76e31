import BenchmarkScenarios
import Foundation

// Runs every scenario for Nimbus, raw SQLite C and GRDB records side by side in one
// process: a warm-up run, then the median of N timed runs (ContinuousClock), and prints
// one Markdown table per scenario with the ratio to the fastest.
//
//     swift run -c release NimbusBenchmarkReport [--runs N] [--only insert|fetchMaterialized|fetchFaults] [--contender Nimbus] [--divide 10]

var runs = 5
var only: Set<String> = []  // scenario case names
var contenders = Contender.allCases
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--runs": runs = Int(arguments.next() ?? "") ?? runs
    case "--divide": Scenario.divisor = Int(arguments.next() ?? "") ?? 1
    case "--only": only.insert(arguments.next() ?? "")
    case "--contender":
        let name = arguments.next() ?? ""
        contenders = Contender.allCases.filter { $0.rawValue.caseInsensitiveCompare(name) == .orderedSame }
        if contenders.isEmpty {
            FileHandle.standardError.write(Data("unknown contender \(name); one of: \(Contender.allCases.map(\.rawValue).joined(separator: ", "))\n".utf8))
            exit(2)
        }
    default:
        FileHandle.standardError.write(Data("unknown argument \(argument)\n".utf8))
        exit(2)
    }
}

func milliseconds(_ duration: Duration) -> Double { ReportFormatting.milliseconds(duration) }
func median(_ values: [Double]) -> Double { ReportFormatting.median(values) }
func grouped(_ value: Int) -> String { ReportFormatting.grouped(value) }

func format(_ value: Double) -> String { String(format: value < 10 ? "%.2f" : "%.1f", value) }

let suite = BenchmarkSuite()
let clock = ContinuousClock()
for scenario in Scenario.allCases where only.isEmpty || only.contains("\(scenario)") {
    var medians: [(Contender, Double, [Double])] = []
    for contender in contenders {
        let benchmarkCase = try suite.makeCase(scenario, contender)
        var times: [Double] = []
        for iteration in 0...runs {
            try benchmarkCase.prepare()
            let elapsed = try clock.measure { try benchmarkCase.run() }
            try benchmarkCase.verify()
            if iteration > 0 { times.append(milliseconds(elapsed)) }  // iteration 0 warms up
        }
        medians.append((contender, median(times), times))
        FileHandle.standardError.write(Data("\(scenario.rawValue) / \(contender.rawValue): \(times.map(format).joined(separator: " ")) ms\n".utf8))
    }
    let fastest = medians.map(\.1).min()!
    print("### \(scenario.rawValue)\n")
    print("| contender | size (rows) | time (median of \(runs), ms) | ratio to fastest |")
    print("| --- | ---: | ---: | ---: |")
    for (contender, time, _) in medians {
        print("| \(contender.rawValue) | \(grouped(scenario.rows)) | \(format(time)) | \(String(format: "%.2f", time / fastest))× |")
    }
    print("")
}
suite.removeFiles()
