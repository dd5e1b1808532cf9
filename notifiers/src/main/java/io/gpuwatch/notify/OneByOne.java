package io.gpuwatch.notify;

import io.vertx.core.Future;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Delivers a batch to a target that takes one alert per request (PagerDuty events, Opsgenie alerts, Jira
 * issues): in order, each alert on its own so one refused alert does not hold back the rest, and one
 * {@link DeliveryFailure} at the end that says how many did not arrive.
 */
public final class OneByOne {
    private OneByOne() {
    }

    /** Sends every notification of {@code batch} through {@code one}, one after the other. */
    public static Future<Void> send(String receiver, List<Notification> batch,
                                    Function<Notification, Future<Void>> one) {
        Future<List<DeliveryFailure>> chain = Future.succeededFuture(new ArrayList<>());
        for (Notification n : batch) {
            chain = chain.compose(failures -> one.apply(n).transform(ar -> {
                if (ar.failed()) {
                    failures.add(ar.cause() instanceof DeliveryFailure f ? f
                            : new DeliveryFailure(receiver, 0, "unexpected " + ar.cause().getClass().getSimpleName(),
                                    true));
                }
                return Future.succeededFuture(failures);
            }));
        }
        return chain.compose(failures -> failures.isEmpty() ? Future.succeededFuture()
                : Future.failedFuture(combined(receiver, failures, batch.size())));
    }

    private static DeliveryFailure combined(String receiver, List<DeliveryFailure> failures, int total) {
        if (failures.size() == 1 && total == 1) {
            return failures.get(0);
        }
        return new DeliveryFailure(receiver, failures.stream().mapToInt(DeliveryFailure::attempts).max().orElse(0),
                failures.size() + " of " + total + " alerts not delivered; first: " + failures.get(0).lastError(),
                failures.stream().anyMatch(DeliveryFailure::retryable));
    }
}
