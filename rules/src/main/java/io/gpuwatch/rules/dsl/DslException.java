package io.gpuwatch.rules.dsl;

/** An expression or template that cannot be compiled; carries where and why. */
public final class DslException extends Exception {
    private static final long serialVersionUID = 1L;

    private final int offset;

    DslException(int offset, String message) {
        super(message);
        this.offset = offset;
    }

    /** Character offset into the expression or template source. */
    public int offset() {
        return offset;
    }

    public DslProblem problem() {
        return new DslProblem(offset, getMessage());
    }
}
