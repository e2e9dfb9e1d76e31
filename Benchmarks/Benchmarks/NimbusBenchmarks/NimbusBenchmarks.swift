import Benchmark
import BenchmarkScenarios

// package-benchmark's entry point: one benchmark per scenario and contender, named
// "<scenario> / <contender>". package-benchmark runs each in a process of its own;
// `swift run -c release NimbusBenchmarkReport` runs them all side by side in one process
// and prints the ratios.
//
//     swift package --disable-sandbox benchmark
//     swift package --disable-sandbox benchmark --filter "insert.*"
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .peakMemoryResident],
        timeUnits: .milliseconds,
        warmupIterations: 1,
        maxDuration: .seconds(60),
        maxIterations: 5
    )
    let suite = BenchmarkSuite()
    for scenario in Scenario.allCases {
        for contender in Contender.allCases {
            let name = "\(scenario.rawValue) / \(contender.rawValue)"
            let box = CaseBox()
            Benchmark(name) { benchmark in
                let benchmarkCase = box.value!
                try benchmarkCase.prepare()
                benchmark.startMeasurement()
                try benchmarkCase.run()
                benchmark.stopMeasurement()
                try benchmarkCase.verify()
            } setup: {
                box.value = try suite.makeCase(scenario, contender)
            } teardown: {
                box.value = nil
                suite.removeFiles()
            }
        }
    }
}

/// Holds the case a benchmark's setup makes for its iterations.
final class CaseBox: @unchecked Sendable {
    var value: (any BenchmarkCase)?
}
