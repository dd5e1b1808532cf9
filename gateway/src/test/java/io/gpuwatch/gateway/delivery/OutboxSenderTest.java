package io.gpuwatch.gateway.delivery;

import io.gpuwatch.gateway.group.Flush;
import io.gpuwatch.gateway.store.AsyncStore;
import io.gpuwatch.gateway.store.Backoff;
import io.gpuwatch.gateway.store.OutboxEntry;
import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.Receiver;
import io.gpuwatch.notify.receiver.webhook.HttpAuth;
import io.gpuwatch.notify.receiver.webhook.WebhookConfig;
import io.gpuwatch.notify.receiver.webhook.WebhookReceiver;
import io.gpuwatch.notify.retry.Pause;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@ExtendWith(VertxExtension.class)
class OutboxSenderTest {
    private static final Instant T0 = Instant.parse("2026-12-03T10:00:00Z");
    private static final Backoff BACKOFF = new Backoff(Duration.ofSeconds(1), Duration.ofMinutes(5), 2.0, 0.2, 20,
            () -> 0.5);

    @TempDir
    Path dir;
    private final AtomicReference<Instant> now = new AtomicReference<>(T0);
    private final InstantSource clock = () -> now.get();
    /** Status codes the fake webhook answers with, in turn; 200 once they run out. */
    private final Deque<Integer> answers = new ArrayDeque<>();
    private final List<String> accepted = new ArrayList<>();
    private int requests;
    private WebClient client;
    private HttpServer server;

    @BeforeEach
    void serve(Vertx vertx, VertxTestContext tc) {
        client = WebClient.create(vertx);
        vertx.createHttpServer().requestHandler(req -> req.body().onSuccess(body -> {
            requests++;
            int status = answers.isEmpty() ? 200 : answers.poll();
            if (status == 200) {
                accepted.add(body.toString());
            }
            req.response().setStatusCode(status).end("{\"error\":\"status " + status + "\"}");
        })).listen(0).onComplete(tc.succeeding(s -> {
            server = s;
            tc.completeNow();
        }));
    }

    private Receiver webhook(Vertx vertx, String name) {
        // one attempt per send: the outbox, not the receiver, does the retrying here
        WebhookConfig config = new WebhookConfig("http://127.0.0.1:" + server.actualPort() + "/hook", HttpAuth.NONE,
                2000, 1, 200, 10_000, 0);
        return new WebhookReceiver(name, config, "http://gw", client, new Random(1), Pause.timers(vertx), clock);
    }

    private Future<AsyncStore> open(Vertx vertx) {
        return AsyncStore.open(vertx, dir.resolve("gateway"), clock, BACKOFF);
    }

    private static Notification firing(String uuid) {
        return new Notification("fp-" + uuid, Notification.Status.FIRING,
                Map.of("alertname", "xid-fallen-off-bus", "severity", "page", "uuid", uuid), Map.of(), T0, null, "");
    }

    private static Flush flush(String receiver, Flush.Reason reason, Notification... alerts) {
        return new Flush(null, receiver, "{}:{uuid=\"GPU-1\"}", Map.of(), List.of(alerts), reason, T0);
    }

    private static OutboxSender.Settings settings(String fallback) {
        return new OutboxSender.Settings(10, Duration.ofMinutes(5), Duration.ofMinutes(2), Duration.ofMinutes(10),
                fallback);
    }

    /** Keeps what it is given, in process; {@code fail} makes it refuse. */
    private static final class Capture implements Receiver {
        final List<Notification> got = new ArrayList<>();

        @Override
        public String name() {
            return "chat";
        }

        @Override
        public Future<Void> send(List<Notification> batch) {
            got.addAll(batch);
            return Future.succeededFuture();
        }
    }

    @Test
    void aBatchRefusedWith500IsRetriedAfterTheBackoffAndDeliveredOnce(Vertx vertx, VertxTestContext tc) {
        answers.add(500);
        vertx.getOrCreateContext().runOnContext(go -> open(vertx).compose(store -> {
            Receiver pager = webhook(vertx, "pager");
            OutboxSender sender = new OutboxSender(vertx, store, List.of(pager), clock, settings(null));
            return sender.deliver(pager, flush("pager", Flush.Reason.FIRST, firing("GPU-1")))
                    .compose(v -> sender.poll())
                    .compose(n -> store.run(s -> s.outbox().list(OutboxEntry.State.PENDING, 10)))
                    .compose(pending -> {
                        tc.verify(() -> {
                            assertEquals(1, pending.size(), "the refused batch waits");
                            assertTrue(pending.get(0).lastError().contains("500"), pending.get(0).lastError());
                            assertEquals(List.of(), accepted);
                        });
                        return sender.poll();
                    })
                    .compose(n -> {
                        tc.verify(() -> assertEquals(0, n, "not due again before the back-off"));
                        now.set(T0.plusSeconds(5));
                        return sender.poll();
                    })
                    .compose(n -> sender.poll())
                    .compose(n -> store.run(s -> List.of(s.outbox().count(OutboxEntry.State.SENT),
                            s.outbox().count(OutboxEntry.State.PENDING),
                            s.notificationLog().last("pager", "{}:{uuid=\"GPU-1\"}")
                                    .filter(e -> e.firing().equals(List.of("fp-GPU-1"))).isPresent() ? 1L : 0L)))
                    .eventually(store::close);
        }).onComplete(tc.succeeding(counts -> tc.verify(() -> {
            assertEquals(1, accepted.size(), "delivered once");
            assertTrue(accepted.get(0).contains("GPU-1"), accepted.get(0));
            assertEquals(2, requests);
            assertEquals(List.of(1L, 0L, 1L), counts, "sent, pending, logged with the alert it told fires");
            tc.completeNow();
        }))));
    }

    /** Refuses every batch while {@code down}, as a receiver in an outage does; keeps what it accepts, in order. */
    private static final class Flaky implements Receiver {
        final List<String> accepted = new ArrayList<>();
        boolean down = true;

        @Override
        public String name() {
            return "pager";
        }

        @Override
        public Future<Void> send(List<Notification> batch) {
            if (down) {
                return Future.failedFuture(new IllegalStateException("503 service unavailable"));
            }
            batch.forEach(n -> accepted.add(n.labels().get("uuid") + ":" + n.status()));
            return Future.succeededFuture();
        }
    }

    private static Flush group(String uuid, Flush.Reason reason, Notification alert) {
        return new Flush(null, "pager", "{}:{uuid=\"" + uuid + "\"}", Map.of(), List.of(alert), reason, T0);
    }

    private static Notification resolved(Notification n) {
        return new Notification(n.fingerprint(), Notification.Status.RESOLVED, n.labels(), n.annotations(),
                n.startsAt(), T0.plusSeconds(1), "");
    }

    @Test
    void afterAnOutageAGroupsResolutionIsNeverDeliveredBeforeItsTrigger(Vertx vertx, VertxTestContext tc) {
        Flaky pager = new Flaky();
        Notification one = firing("GPU-1");
        vertx.getOrCreateContext().runOnContext(go -> open(vertx).compose(store -> {
            OutboxSender sender = new OutboxSender(vertx, store, List.of(pager), clock, settings(null));
            return sender.deliver(pager, group("GPU-1", Flush.Reason.FIRST, one))
                    .compose(v -> sender.poll())
                    .compose(n -> {
                        // the trigger waits out its back-off; meanwhile the alert resolves and another one fires
                        pager.down = false;
                        return sender.deliver(pager, group("GPU-1", Flush.Reason.RESOLVED, resolved(one)));
                    })
                    .compose(v -> sender.deliver(pager, group("GPU-2", Flush.Reason.FIRST, firing("GPU-2"))))
                    .compose(v -> sender.poll())
                    .compose(n -> sender.poll())
                    .compose(n -> {
                        tc.verify(() -> assertEquals(List.of("GPU-2:FIRING"), pager.accepted,
                                "another group is not held back, but GPU-1's resolution waits for its trigger"));
                        now.set(T0.plusSeconds(5));
                        return sender.poll();
                    })
                    .compose(n -> sender.poll())
                    .compose(n -> store.run(s -> s.outbox().count(OutboxEntry.State.PENDING)))
                    .eventually(store::close);
        }).onComplete(tc.succeeding(pending -> tc.verify(() -> {
            assertEquals(List.of("GPU-2:FIRING", "GPU-1:FIRING", "GPU-1:RESOLVED"), pager.accepted,
                    "once the receiver is back, GPU-1's trigger goes first and its resolution right after");
            assertEquals(0L, pending);
            tc.completeNow();
        }))));
    }

    @Test
    void aBatchRejectedWith400IsGivenUpAndNotLogged(Vertx vertx, VertxTestContext tc) {
        answers.add(400);
        vertx.getOrCreateContext().runOnContext(go -> open(vertx).compose(store -> {
            Receiver pager = webhook(vertx, "pager");
            OutboxSender sender = new OutboxSender(vertx, store, List.of(pager), clock, settings(null));
            return sender.deliver(pager, flush("pager", Flush.Reason.FIRST, firing("GPU-1")))
                    .compose(v -> sender.poll())
                    .compose(v -> {
                        now.set(T0.plus(Duration.ofHours(1)));
                        return sender.poll();
                    })
                    .compose(n -> store.run(s -> List.of(s.outbox().list(OutboxEntry.State.FAILED, 10),
                            s.notificationLog().last("pager", "{}:{uuid=\"GPU-1\"}").stream().toList())))
                    .map(r -> {
                        tc.verify(() -> assertEquals(1, sender.givenUp()));
                        return r;
                    })
                    .eventually(store::close);
        }).onComplete(tc.succeeding(r -> tc.verify(() -> {
            List<?> failed = r.get(0);
            assertEquals(1, failed.size());
            assertTrue(((OutboxEntry) failed.get(0)).lastError().contains("400"), failed.toString());
            assertEquals(List.of(), r.get(1), "nothing was delivered, so nothing is logged");
            assertEquals(1, requests, "a client error is not retried");
            tc.completeNow();
        }))));
    }

    @Test
    void rowsPendingAtACrashAreDeliveredAfterRestartAndARebuiltGroupIsNotSentTwice(Vertx vertx,
                                                                                    VertxTestContext tc) {
        String payload = new BatchPayload(Flush.Reason.FIRST, Map.of(), List.of(firing("GPU-1"))).encode();
        vertx.getOrCreateContext().runOnContext(go -> open(vertx)
                .compose(store -> store.run(s -> {
                    s.outbox().enqueue("pager", "{}:{uuid=\"GPU-1\"}", payload);
                    // claimed and in flight when the gateway died
                    return s.outbox().claim(1, Duration.ofMinutes(5));
                }).compose(claimed -> store.close()))
                .compose(v -> open(vertx))
                .compose(store -> {
                    Receiver pager = webhook(vertx, "pager");
                    OutboxSender sender = new OutboxSender(vertx, store, List.of(pager), clock, settings(null));
                    return sender.poll()
                            // the ledger's recovery rebuilds the group, which flushes again with the same alerts
                            .compose(n -> sender.deliver(pager, flush("pager", Flush.Reason.FIRST, firing("GPU-1"))))
                            .compose(v -> sender.poll())
                            .compose(v -> sender.poll())
                            .map(v -> List.of(sender.delivered(), sender.skipped()))
                            .eventually(store::close);
                })
                .onComplete(tc.succeeding(counts -> tc.verify(() -> {
                    assertEquals(1, accepted.size(), "the pending row went out, once");
                    assertEquals(List.of(1L, 1L), counts, "delivered, skipped as already delivered");
                    tc.completeNow();
                }))));
    }

    @Test
    void aReceiverFailingForTenMinutesRaisesAMetaAlertThatResolvesWhenItRecovers(Vertx vertx,
                                                                                  VertxTestContext tc) {
        for (int i = 0; i < 50; i++) {
            answers.add(503);
        }
        Capture chat = new Capture();
        List<String> seen = new ArrayList<>();
        vertx.getOrCreateContext().runOnContext(go -> open(vertx).compose(store -> {
            Receiver pager = webhook(vertx, "pager");
            OutboxSender sender = new OutboxSender(vertx, store, List.of(pager, chat), clock, settings("chat"));
            Future<Void> run = sender.deliver(pager, flush("pager", Flush.Reason.FIRST, firing("GPU-1")))
                    .compose(v -> sender.poll()).mapEmpty();
            // a poll a minute: each one checks the receivers' health, whether or not the failing row is due again
            for (int minute = 1; minute <= 12; minute++) {
                Instant at = T0.plus(Duration.ofMinutes(minute));
                run = run.compose(v -> {
                    now.set(at);
                    return sender.poll();
                }).compose(n -> sender.poll()).map(n -> {
                    seen.add(at + " " + chat.got.size());
                    return null;
                });
            }
            return run.compose(v -> {
                tc.verify(() -> {
                    assertEquals(1, chat.got.size(), seen.toString());
                    Notification meta = chat.got.get(0);
                    assertEquals(Notification.Status.FIRING, meta.status());
                    assertEquals(Map.of("alertname", ReceiverWatch.ALERTNAME, "severity", "page",
                            "receiver", "pager"), meta.labels());
                    assertEquals(T0, meta.startsAt(), "it has been failing since the first refusal");
                    assertEquals(List.of("pager"), sender.failingReceivers());
                    assertTrue(seen.get(8).endsWith(" 0"), "not before ten minutes: " + seen);
                });
                answers.clear();
                now.set(T0.plus(Duration.ofMinutes(20)));
                return sender.poll();
            }).compose(n -> sender.poll()).compose(n -> sender.poll())
                    .eventually(store::close)
                    .map(n -> sender.failingReceivers());
        }).onComplete(tc.succeeding(failing -> tc.verify(() -> {
            assertEquals(List.of(), failing);
            assertEquals(2, chat.got.size(), chat.got.toString());
            assertEquals(Notification.Status.RESOLVED, chat.got.get(1).status());
            assertEquals(1, accepted.size(), "the page itself went out once the receiver recovered");
            tc.completeNow();
        }))));
    }

    @Test
    void reSendsShareOneRowAndAFailedOneIsNotRetried(Vertx vertx, VertxTestContext tc) {
        answers.add(503);
        vertx.getOrCreateContext().runOnContext(go -> open(vertx).compose(store -> {
            Receiver am = webhook(vertx, "am");
            OutboxSender sender = new OutboxSender(vertx, store, List.of(am), clock, settings(null));
            return sender.deliver(am, refresh("am", firing("GPU-1")))
                    .compose(v -> sender.poll())
                    .compose(n -> {
                        tc.verify(() -> assertEquals(1, requests));
                        now.set(T0.plusSeconds(30));
                        return sender.poll();
                    })
                    .compose(n -> {
                        tc.verify(() -> assertEquals(1, requests, "the refused re-send is not tried again"));
                        return sender.deliver(am, refresh("am", firing("GPU-2")));
                    })
                    .compose(v -> sender.poll())
                    .compose(v -> sender.deliver(am, refresh("am", firing("GPU-3"))))
                    .compose(v -> sender.poll())
                    .compose(n -> store.run(s -> List.of(s.outbox().count(OutboxEntry.State.SENT),
                            s.outbox().count(OutboxEntry.State.PENDING), s.outbox().count(OutboxEntry.State.FAILED),
                            s.notificationLog().last("am", "gpuwatch:resend").isPresent() ? 1L : 0L)))
                    .eventually(store::close);
        }).onComplete(tc.succeeding(counts -> tc.verify(() -> {
            assertEquals(List.of(1L, 0L, 0L, 0L), counts, "one row, sent, for every re-send; no group log entry");
            assertEquals(3, requests);
            assertEquals(2, accepted.size());
            assertTrue(accepted.get(0).contains("GPU-2") && !accepted.get(0).contains("GPU-1"), accepted.get(0));
            assertTrue(accepted.get(1).contains("GPU-3"), accepted.get(1));
            tc.completeNow();
        }))));
    }

    private static Flush refresh(String receiver, Notification... alerts) {
        return new Flush(null, receiver, "gpuwatch:resend", Map.of(), List.of(alerts), Flush.Reason.REFRESH, T0);
    }
}
