package io.gpuwatch.rules.dsl;

import java.util.List;

/** The parsed, not yet checked form of an expression; {@code pos} is the offset of the node's first token. */
sealed interface Syntax {
    int pos();

    /** A number in canonical units: plain, duration (ms), size (bytes) or rate (bytes per second). */
    record Num(double value, Unit unit, String text, int pos) implements Syntax {
    }

    record Str(String value, int pos) implements Syntax {
    }

    record Bool(boolean value, int pos) implements Syntax {
    }

    /** A bare identifier: a metric, a label or a builtin. */
    record Name(String name, int pos) implements Syntax {
    }

    /** {@code card.<key>}, {@code labels.<key>} or {@code labels['key']}; {@code keyPos} is where the key starts. */
    record Path(String root, String key, int pos, int keyPos) implements Syntax {
    }

    record Call(String name, List<Syntax> args, int pos) implements Syntax {
        public Call {
            args = List.copyOf(args);
        }
    }

    /** {@code cards where <condition>}: the member cards of a task or business for which the condition holds. */
    record CardsWhere(Syntax condition, int pos) implements Syntax {
    }

    /**
     * An accessor of a call, {@code baseline(m).upper(3)}: {@code args} is null without parentheses;
     * {@code namePos} is where the accessor's name starts.
     */
    record Member(Call target, String name, List<Syntax> args, int pos, int namePos) implements Syntax {
        public Member {
            args = args == null ? null : List.copyOf(args);
        }
    }

    record Unary(String op, Syntax operand, int pos) implements Syntax {
    }

    /** {@code pos} is the first token of the left operand, {@code opPos} the operator. */
    record Binary(String op, Syntax left, Syntax right, int pos, int opPos) implements Syntax {
    }
}
