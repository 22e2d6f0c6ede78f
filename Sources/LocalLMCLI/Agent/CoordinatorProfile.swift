import LocalLM

extension SessionPropertyValues {
    /// Tool calls the coordinator has made: which phase it is in.
    @SessionPropertyEntry
    var coordinatorToolCalls: Int = 0
}

/// The coordinator: plan, then hand the subtasks to the workers, then answer. Each phase offers
/// one tool and requires calling it, which a small model needs to follow the steps; a larger
/// model could get both tools with `.allowed`.
struct CoordinatorProfile: LanguageModelSession.DynamicProfile {
    @LanguageModelSession.SessionProperty(\.coordinatorToolCalls)
    var toolCalls

    let planner: PlannerTool
    let workers: WorkersTool

    var body: some LanguageModelSession.DynamicProfile {
        if toolCalls == 0 {
            LanguageModelSession.Profile {
                "You coordinate. Give the person's task to the planner, as written."
                planner
            }
            .toolCallingMode(.required)
            .onToolCall { toolCalls += 1 }
        } else if toolCalls == 1 {
            LanguageModelSession.Profile {
                "You coordinate. Give the subtasks of the plan to the workers."
                workers
            }
            .toolCallingMode(.required)
            .onToolCall { toolCalls += 1 }
        } else {
            LanguageModelSession.Profile {
                "You coordinate. Answer the person in plain sentences, using the workers' results."
            }
            .toolCallingMode(.disallowed)
        }
    }
}
