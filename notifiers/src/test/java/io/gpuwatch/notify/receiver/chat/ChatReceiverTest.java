package io.gpuwatch.notify.receiver.chat;

import io.gpuwatch.notify.DeliveryFailure;
import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.render.Layout;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.ext.web.client.WebClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import static io.gpuwatch.notify.receiver.chat.Alerts.XID_1;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What every chat receiver does before its message reaches the delivery: the failures that are not retried. */
class ChatReceiverTest {
    private final Vertx vertx = Vertx.vertx();
    private final AtomicInteger requests = new AtomicInteger();

    @AfterEach
    void close() {
        vertx.close();
    }

    @Test
    void anEmptyBatchIsDoneWithoutRendering() {
        Future<Void> sent = receiver(batch -> {
            throw new AssertionError("rendered an empty batch");
        }).send(List.of());
        assertTrue(sent.succeeded());
        assertEquals(0, requests.get());
    }

    @Test
    void aRenderingThatThrowsFailsAtOnceNamingTheException() {
        DeliveryFailure failure = failure(receiver(batch -> {
            throw new IllegalStateException("template blew up");
        }).send(List.of(XID_1)));
        assertEquals("could not render the card: IllegalStateException", failure.lastError());
        assertFalse(failure.retryable());
        assertEquals("r", failure.receiver());
        assertEquals(0, requests.get());
    }

    @Test
    void aTitleOverTheLimitFailsAtOnceNamingTheLimit() {
        DeliveryFailure failure = failure(receiver(batch -> Optional.empty()).send(List.of(XID_1)));
        assertEquals("the card title alone exceeds Fake's 10-byte message limit", failure.lastError());
        assertFalse(failure.retryable());
        assertEquals(0, requests.get());
    }

    private static DeliveryFailure failure(Future<Void> sent) {
        assertTrue(sent.failed(), "the send failed before any request");
        return assertInstanceOf(DeliveryFailure.class, sent.cause());
    }

    private ChatReceiver<String> receiver(Function<List<Notification>, Optional<String>> render) {
        FakeTime time = new FakeTime(Instant.parse("2026-03-01T00:00:00Z"));
        ChatDelivery delivery = new ChatDelivery("r", "http://127.0.0.1:9/hook", List.of(),
                ChatSettings.defaults(0, Layout.of("t", "e")), time.sending(WebClient.create(vertx)));
        return new ChatReceiver<>("r", delivery, "card", "Fake's 10-byte message limit", render, body -> {
            requests.incrementAndGet();
            return Future.failedFuture("no request expected");
        }, Reply::byStatus) {
        };
    }
}
