package io.gpuwatch.rules;

/** A rule failed while evaluating; the message names the rule and its file:line. */
public final class RuleEvaluationException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final transient Rule rule;
    private final String reason;

    RuleEvaluationException(Rule rule, String what, Throwable cause) {
        super(rule.file() + ":" + rule.line() + ": rule `" + rule.name() + "`: " + what + " failed: "
                + describe(cause), cause);
        this.rule = rule;
        this.reason = what + " failed: " + describe(cause);
    }

    public Rule rule() {
        return rule;
    }

    /** What failed and why, without the rule's position: {@code when failed: IllegalStateException: …}. */
    public String reason() {
        return reason;
    }

    /** The innermost cause, since MVEL wraps what the scope view threw. */
    private static String describe(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String msg = root.getMessage();
        return root.getClass().getSimpleName() + (msg == null ? "" : ": " + msg);
    }
}
