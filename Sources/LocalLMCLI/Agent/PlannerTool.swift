import LocalLM

/// The planner: runs its own session, which breaks the task into an `AgentPlan`.
struct PlannerTool: Tool {
    let name = "plan"
    let description = "Breaks a task into short subtasks."

    @Generable
    struct Arguments {
        @Guide(description: "The task to break down", .pattern(/[A-Z][A-Za-z ,?']{3,80}/))
        var task: String
    }

    let model: SystemLanguageModel
    let options: GenerationOptions

    func call(arguments: Arguments) async throws -> AgentPlan {
        let session = LanguageModelSession(
            model: model, instructions: "You list the steps of a task: two or three short commands.")
        // Without the schema in the prompt a small model writes steps instead of copying descriptions;
        // the grammar still holds it to the plan's shape.
        return try await session.respond(
            to: "Task: \(arguments.task)", generating: AgentPlan.self, includeSchemaInPrompt: false, options: options
        ).content
    }
}
