package io.gpuwatch.probe.scenario;

import java.util.List;

/** The outcome of loading a scenario: the scenario, or every problem found, in file order. */
public sealed interface ScenarioLoad {
    /** A valid scenario. */
    record Loaded(Scenario scenario) implements ScenarioLoad {
    }

    /** The problems that kept the file from loading. */
    record Invalid(List<ScenarioError> errors) implements ScenarioLoad {
        public Invalid {
            errors = List.copyOf(errors);
        }
    }
}
