/// Options that control how the model generates its response to a prompt.
///
/// Every property is optional: `nil` lets the session choose (the engine's defaults are
/// temperature 0.7 with nucleus sampling, and a response budget of whatever the context has left).
public struct GenerationOptions: Sendable, Equatable {
    /// The sampling strategy. `nil` lets the session pick a reasonable default.
    public var samplingMode: SamplingMode?

    /// Temperature in `0...2`: low values sharpen the distribution, high values flatten it.
    public var temperature: Double?

    /// The most tokens the model may produce in its response.
    public var maximumResponseTokens: Int?

    /// Whether the model may, must or must not call the session's tools. `nil` means `.allowed`.
    public var toolCallingMode: ToolCallingMode?

    /// The 2025 name of `samplingMode`.
    @available(*, deprecated, renamed: "samplingMode")
    public var sampling: SamplingMode? {
        get { samplingMode }
        set { samplingMode = newValue }
    }

    /// Creates generation options; every parameter is optional.
    public init(samplingMode: SamplingMode? = nil, temperature: Double? = nil, maximumResponseTokens: Int? = nil) {
        self.samplingMode = samplingMode
        self.temperature = temperature
        self.maximumResponseTokens = maximumResponseTokens
        self.toolCallingMode = nil
    }

    /// Creates generation options with a tool calling mode.
    public init(
        samplingMode: SamplingMode? = nil, temperature: Double? = nil, maximumResponseTokens: Int? = nil,
        toolCallingMode: ToolCallingMode?
    ) {
        self.samplingMode = samplingMode
        self.temperature = temperature
        self.maximumResponseTokens = maximumResponseTokens
        self.toolCallingMode = toolCallingMode
    }

    /// The 2025 initializer. `sampling` has no default so that `GenerationOptions()` stays unambiguous.
    @available(*, deprecated, renamed: "init(samplingMode:temperature:maximumResponseTokens:)")
    public init(sampling: SamplingMode?, temperature: Double? = nil, maximumResponseTokens: Int? = nil) {
        self.init(samplingMode: sampling, temperature: temperature, maximumResponseTokens: maximumResponseTokens)
    }
}

extension GenerationOptions {
    /// How the model picks each token from the probability distribution it produces.
    public struct SamplingMode: Sendable, Equatable {
        /// The strategy this sampling mode uses to choose the next token.
        public enum Kind: Sendable, Equatable {
            /// Always the most likely token.
            case greedy
            /// A random choice among the `k` most likely tokens.
            case topK(Int)
            /// A random choice among the most likely tokens whose probabilities sum to the threshold.
            case nucleus(Double)
        }

        /// The strategy this sampling mode uses to choose the next token.
        public let kind: Kind

        /// A seed that makes random sampling repeatable; `nil` seeds from the system.
        public let seed: UInt64?

        package init(kind: Kind, seed: UInt64?) {
            self.kind = kind
            self.seed = seed
        }

        /// Always choose the most likely token. The same input always gives the same output.
        public static var greedy: SamplingMode { SamplingMode(kind: .greedy, seed: nil) }

        /// Choose among the `k` most likely tokens (top-k).
        public static func random(top k: Int, seed: UInt64? = nil) -> SamplingMode {
            SamplingMode(kind: .topK(k), seed: seed)
        }

        /// Choose among the most likely tokens whose cumulative probability reaches the threshold (top-p).
        public static func random(probabilityThreshold: Double, seed: UInt64? = nil) -> SamplingMode {
            SamplingMode(kind: .nucleus(probabilityThreshold), seed: seed)
        }
    }

    /// Whether the model may call tools during a request.
    public struct ToolCallingMode: Sendable, Hashable, CustomStringConvertible {
        package enum Value: String, Sendable, Hashable {
            case allowed, required, disallowed
        }

        package let value: Value

        package init(_ value: Value) {
            self.value = value
        }

        /// The model decides whether to call tools. The default.
        public static let allowed = ToolCallingMode(.allowed)
        /// The model must call one or more tools before it can respond.
        public static let required = ToolCallingMode(.required)
        /// The model cannot call tools and answers from what it knows.
        public static let disallowed = ToolCallingMode(.disallowed)

        public var description: String { value.rawValue }
    }
}
