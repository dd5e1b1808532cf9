package io.gpuwatch.notify.retry;

import io.gpuwatch.notify.DeliveryFailure;
import io.vertx.core.Future;

import java.time.Duration;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * Runs delivery attempts under a {@link RetryPolicy}: retries transient outcomes after the back-off or the
 * server's requested pause, stops at once on a rejection, and fails with a {@link DeliveryFailure} when it
 * gives up. Waiting happens on the injected {@link Pause}, never on a blocked thread.
 */
public final class Retrier {
    private final RetryPolicy policy;
    private final RandomGenerator random;
    private final Pause pause;

    public Retrier(RetryPolicy policy, RandomGenerator random, Pause pause) {
        this.policy = policy;
        this.random = random;
        this.pause = pause;
    }

    /**
     * Delivers with as many attempts as the policy allows. An attempt should turn its own errors into an
     * {@link Outcome} worded without secrets; one that throws or fails anyway is retried, reported by type only.
     */
    public Future<Void> run(String receiver, Supplier<Future<Outcome>> attempt) {
        return step(receiver, attempt, 1);
    }

    private Future<Void> step(String receiver, Supplier<Future<Outcome>> attempt, int n) {
        Future<Outcome> tried;
        try {
            tried = attempt.get();
        } catch (RuntimeException e) {
            tried = Future.failedFuture(e);
        }
        return tried
                .otherwise(e -> Outcome.retry("attempt failed with " + e.getClass().getSimpleName()))
                .compose(outcome -> next(receiver, attempt, n, outcome));
    }

    private Future<Void> next(String receiver, Supplier<Future<Outcome>> attempt, int n, Outcome outcome) {
        if (outcome instanceof Outcome.Delivered) {
            return Future.succeededFuture();
        }
        if (outcome instanceof Outcome.Reject reject) {
            return Future.failedFuture(new DeliveryFailure(receiver, n, reject.error(), false));
        }
        Outcome.Retry retry = (Outcome.Retry) outcome;
        if (n >= policy.maxAttempts()) {
            return Future.failedFuture(new DeliveryFailure(receiver, n, retry.error(), true));
        }
        Duration asked = retry.after();
        if (asked != null && asked.compareTo(Duration.ofMillis(policy.maxBackoffMs())) > 0) {
            return Future.failedFuture(new DeliveryFailure(receiver, n, retry.error() + "; the server asked to wait "
                    + asked.toSeconds() + " s, longer than maxBackoffMs " + policy.maxBackoffMs(), true));
        }
        long waitMs = asked != null ? asked.toMillis() : policy.backoffMs(n, random);
        return pause.after(waitMs).compose(v -> step(receiver, attempt, n + 1));
    }
}
