package io.gpuwatch.rules.dsl;

/** The value types of the rule language. */
public enum Type {
    NUMBER("a number"),
    BOOLEAN("true/false"),
    STRING("a string");

    private final String words;

    Type(String words) {
        this.words = words;
    }

    /** How an error message names the type. */
    String words() {
        return words;
    }
}
