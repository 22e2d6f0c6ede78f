import LocalLMGGUF
import LocalLMJinja
import LocalLMKernels
import LocalLMRuntime
import LocalLMTokenizers

/// Whether LocalLM can run a GGUF file, and if not, every reason it can name: the architecture, each
/// tensor type the kernels cannot compute with, a missing or unusable key or tensor, the vocabulary,
/// the chat template. What `locallm inspect` reports; it loads nothing but metadata and tensor views.
package struct ModelSupport: Sendable {
    /// Why the file cannot run, one sentence each; empty when it can.
    package var problems: [String] = []
    /// The tool-call format its chat template implies (nil when the template did not load).
    package var toolCallFormat: ToolCallFormat.Family?
    /// True when the file has no chat template and the ChatML fallback is used.
    package var templateIsFallback = false

    package var isRunnable: Bool { problems.isEmpty }

    package init(_ file: GGUFFile) {
        // Every tensor type the kernels lack, with a count and an example, not just the first one met.
        var unsupported: [GGMLType: (count: Int, example: String)] = [:]
        for tensor in file.tensors where !WeightMatrix.isWeightType(tensor.type) {
            let seen = unsupported[tensor.type]
            unsupported[tensor.type] = ((seen?.count ?? 0) + 1, seen?.example ?? tensor.name)
        }
        for (type, use) in unsupported.sorted(by: { $0.value.example < $1.value.example }) {
            problems.append("tensor type \(type) is not supported (\(use.count) tensor\(use.count == 1 ? "" : "s"), e.g. '\(use.example)')")
        }
        do {
            _ = try TransformerModel(file: file, threadCount: 1)
        } catch let error {
            // A type already listed above is the same problem seen from the loader.
            if case .unsupportedTensorType(_, let type) = error, unsupported[type] != nil {} else {
                problems.append("\(error)")
            }
        }
        do {
            _ = try Vocabulary(gguf: file)
        } catch {
            problems.append("tokenizer: \(error)")
        }
        do {
            let template = try ModelChatTemplate(gguf: file)
            templateIsFallback = template.isFallback
            toolCallFormat = ToolCallFormat(templateSource: template.template.source).family
        } catch {
            problems.append("chat template: \(error)")
        }
    }
}
