package io.gpuwatch.probe.attribution;

import java.util.List;

/** The outcome of reading a labels file: the mapping, or every problem found, in file order. */
public sealed interface LabelsLoad {
    /** A valid labels file. */
    record Loaded(Labels labels) implements LabelsLoad {
    }

    /** The problems that kept the file from loading. */
    record Invalid(List<LabelsError> errors) implements LabelsLoad {
        public Invalid {
            errors = List.copyOf(errors);
        }
    }
}
