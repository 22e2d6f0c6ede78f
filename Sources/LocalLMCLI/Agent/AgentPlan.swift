import LocalLM

/// What the planner session answers with. The patterns keep each subtask a short phrase, which
/// bounds how long a small model can ramble inside a string.
@Generable(description: "The steps of a task")
struct AgentPlan {
    @Guide(description: "Two or three short steps", .count(2...3), .element(.pattern(/[A-Z][A-Za-z ,]{3,48}/)))
    var subtasks: [String]
}
