import Foundation
import LocalLM
import LocalLMSync

/// `{"city": String}`, written by hand so these tests do not depend on the macros.
struct CityArguments: Generable {
    var city: String

    static var generationSchema: GenerationSchema {
        GenerationSchema(type: Self.self, properties: [.init(name: "city", description: "A city", type: String.self)])
    }

    init(_ content: GeneratedContent) throws {
        city = try content.value(String.self, forProperty: "city")
    }

    var generatedContent: GeneratedContent { GeneratedContent(properties: ["city": city]) }
}

/// Records how many calls are running at once, to observe concurrency.
final class CallLog: Sendable {
    private let state = SanitizableMutex<(running: Int, peak: Int, order: [String])>((0, 0, []))

    func enter(_ name: String) {
        state.withLock { $0.running += 1; $0.peak = max($0.peak, $0.running); $0.order.append(name) }
    }

    func leave() { state.withLock { $0.running -= 1 } }

    var peak: Int { state.withLock { $0.peak } }
    var order: [String] { state.withLock { $0.order } }
}

/// A weather tool whose latency depends on the city, so concurrent calls finish out of order.
struct WeatherTool: Tool {
    let name = "getWeather"
    let description = "Retrieve the latest weather information for a city"
    let log: CallLog

    func call(arguments: CityArguments) async throws -> String {
        log.enter(arguments.city)
        defer { log.leave() }
        // The first city is the slowest: outputs must still come back in call order.
        let delay: Duration = arguments.city == "Boston" ? .milliseconds(150) : .milliseconds(20)
        try await Task.sleep(for: delay)
        return "It is 20 degrees in \(arguments.city)."
    }
}

struct DatabaseUnavailable: Error, Equatable {}

/// A tool that always throws.
struct FailingTool: Tool {
    let description = "Searches a database that is down"

    func call(arguments: CityArguments) async throws -> String {
        throw DatabaseUnavailable()
    }
}
