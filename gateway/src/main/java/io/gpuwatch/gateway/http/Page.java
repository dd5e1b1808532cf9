package io.gpuwatch.gateway.http;

import io.vertx.ext.web.RoutingContext;

import java.util.List;

/**
 * The slice of a list a request asked for with {@code limit} and {@code offset}; a list answer also says its
 * {@code total}, so a client knows whether to ask for the next page.
 */
record Page(int limit, int offset) {
    /** A list answer holds this many items unless asked otherwise, and at most MAX. */
    static final int DEFAULT = 1_000;
    static final int MAX = 10_000;

    /** The page of {@code ctx}'s query with the usual bounds, or null after answering 400. */
    static Page of(RoutingContext ctx) {
        return of(ctx, DEFAULT, MAX);
    }

    /** The page of {@code ctx}'s query, or null after answering 400 naming the bad parameter. */
    static Page of(RoutingContext ctx, int defaultLimit, int maxLimit) {
        Integer limit = number(ctx, "limit", defaultLimit, 1, maxLimit);
        if (limit == null) {
            return null;
        }
        Integer offset = number(ctx, "offset", 0, 0, Integer.MAX_VALUE);
        return offset == null ? null : new Page(limit, offset);
    }

    private static Integer number(RoutingContext ctx, String name, int absent, int min, int max) {
        List<String> given = ctx.queryParam(name);
        if (given.isEmpty()) {
            return absent;
        }
        String range = max == Integer.MAX_VALUE ? min + " or more" : "from " + min + " to " + max;
        if (given.size() > 1) {
            Replies.badRequest(ctx, name, "give it once, not " + given.size() + " times");
            return null;
        }
        try {
            int v = Integer.parseInt(given.get(0));
            if (v >= min && v <= max) {
                return v;
            }
        } catch (NumberFormatException e) {
            // answered below, as for a number out of range
        }
        Replies.badRequest(ctx, name, "expected a whole number " + range + ", got " + given.get(0));
        return null;
    }

    /** This page of {@code all}. */
    <T> List<T> of(List<T> all) {
        int from = (int) Math.min(all.size(), (long) offset);
        return all.subList(from, (int) Math.min(all.size(), (long) from + limit));
    }
}
