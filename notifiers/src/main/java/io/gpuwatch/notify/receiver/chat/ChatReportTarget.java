package io.gpuwatch.notify.receiver.chat;

import io.gpuwatch.notify.render.Report;
import io.gpuwatch.notify.retry.Outcome;
import io.vertx.core.Future;

import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * What every chat service's {@link ReportTarget} does with a report once the service has said how to shape it:
 * fit the report into the service's payload, fail at once (not retryable) when even the title does not fit,
 * else post the payload through the target's {@link ChatDelivery}, paced and retried as alert messages are.
 * A base class rather than a field, so that a service's target holds only what is its own.
 *
 * @param <T> the payload as fitted, before each attempt turns it into a request
 */
public abstract class ChatReportTarget<T> implements ReportTarget {
    private final String name;
    private final ChatDelivery delivery;
    private final boolean showsImages;
    private final String limit;
    private final Function<Report, Optional<T>> fit;
    private final Function<T, Future<ChatDelivery.Request>> request;
    private final Function<Reply, Outcome> judge;

    /**
     * Reports for receiver {@code name}: {@code fit} builds the payload cut to the service's size limit (empty
     * when the title alone is over it, which the error then calls {@code limit}, e.g. "Slack's block limits");
     * {@code request} turns the payload into the request of each attempt, so signatures stay current;
     * {@code judge} reads the service's answer.
     */
    protected ChatReportTarget(String name, ChatDelivery delivery, boolean showsImages, String limit,
                               Function<Report, Optional<T>> fit, Function<T, ChatDelivery.Request> request,
                               Function<Reply, Outcome> judge) {
        this(name, delivery, limit, showsImages, fit, t -> Future.succeededFuture(request.apply(t)), judge);
    }

    /** As the target above, for requests that need something fetched first (a Feishu app's access token). */
    protected ChatReportTarget(String name, ChatDelivery delivery, String limit, boolean showsImages,
                               Function<Report, Optional<T>> fit, Function<T, Future<ChatDelivery.Request>> request,
                               Function<Reply, Outcome> judge) {
        this.name = Objects.requireNonNull(name, "name");
        this.delivery = Objects.requireNonNull(delivery, "delivery");
        this.showsImages = showsImages;
        this.limit = Objects.requireNonNull(limit, "limit");
        this.fit = Objects.requireNonNull(fit, "fit");
        this.request = Objects.requireNonNull(request, "request");
        this.judge = Objects.requireNonNull(judge, "judge");
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final boolean showsImages() {
        return showsImages;
    }

    @Override
    public final Future<Void> post(Report report) {
        return delivery.deliverFitted(fit.apply(report), "the report's title alone exceeds " + limit, request,
                judge);
    }
}
