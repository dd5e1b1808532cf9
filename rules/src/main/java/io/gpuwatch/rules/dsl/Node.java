package io.gpuwatch.rules.dsl;

import java.util.Objects;

/**
 * A checked expression as a tree of evaluators that call {@link EvalContext} directly: primitive results, no
 * reflection and no objects made per evaluation. The compiler builds it next to the MVEL it emits.
 */
sealed interface Node {
    /** A number node. */
    non-sealed interface Num extends Node {
        double eval(EvalContext c);
    }

    /** A true/false node. */
    non-sealed interface Bool extends Node {
        boolean eval(EvalContext c);
    }

    /** A string node; null for an absent label. */
    non-sealed interface Text extends Node {
        String eval(EvalContext c);
    }

    static Num number(double v) {
        return c -> v;
    }

    static Bool bool(boolean v) {
        return v ? c -> true : c -> false;
    }

    static Text text(String v) {
        return c -> v;
    }

    static Node not(Node operand) {
        Bool b = (Bool) operand;
        return (Bool) c -> !b.eval(c);
    }

    static Node negate(Node operand) {
        Num n = (Num) operand;
        return (Num) c -> -n.eval(c);
    }

    /** A binary operator of the rule language on operands the compiler has checked the types of. */
    static Node binary(String op, Node left, Node right) {
        if (left instanceof Bool l && right instanceof Bool r) {
            return switch (op) {
                case "&&" -> (Bool) c -> l.eval(c) && r.eval(c);
                case "||" -> (Bool) c -> l.eval(c) || r.eval(c);
                case "==" -> (Bool) c -> l.eval(c) == r.eval(c);
                case "!=" -> (Bool) c -> l.eval(c) != r.eval(c);
                default -> throw new IllegalArgumentException(op);
            };
        }
        if (left instanceof Text l && right instanceof Text r) {
            return switch (op) {
                case "==" -> (Bool) c -> Objects.equals(l.eval(c), r.eval(c));
                case "!=" -> (Bool) c -> !Objects.equals(l.eval(c), r.eval(c));
                default -> throw new IllegalArgumentException(op);
            };
        }
        Num l = (Num) left;
        Num r = (Num) right;
        return switch (op) {
            case "==" -> (Bool) c -> l.eval(c) == r.eval(c);
            case "!=" -> (Bool) c -> l.eval(c) != r.eval(c);
            case "<" -> (Bool) c -> l.eval(c) < r.eval(c);
            case "<=" -> (Bool) c -> l.eval(c) <= r.eval(c);
            case ">" -> (Bool) c -> l.eval(c) > r.eval(c);
            case ">=" -> (Bool) c -> l.eval(c) >= r.eval(c);
            case "+" -> (Num) c -> l.eval(c) + r.eval(c);
            case "-" -> (Num) c -> l.eval(c) - r.eval(c);
            case "*" -> (Num) c -> l.eval(c) * r.eval(c);
            case "/" -> (Num) c -> l.eval(c) / r.eval(c);
            case "%" -> (Num) c -> l.eval(c) % r.eval(c);
            default -> throw new IllegalArgumentException(op);
        };
    }
}
