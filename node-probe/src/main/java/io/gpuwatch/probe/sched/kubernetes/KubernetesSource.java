package io.gpuwatch.probe.sched.kubernetes;

import io.gpuwatch.probe.sched.DrainNotices;
import io.gpuwatch.probe.sched.JsonInput;
import io.gpuwatch.probe.sched.SchedInputError;
import io.gpuwatch.probe.sched.SchedProducer;
import io.gpuwatch.probe.sched.SchedSource;
import io.gpuwatch.protocol.Frame;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import java.util.logging.Logger;

/**
 * Kubernetes as a {@link SchedSource}: lists GPU pods, GPU nodes and pod events once, then keeps them current
 * with watches (not polling), relisting when a watch's resource version has expired (410 Gone). Each read
 * reports the pool from what the watches have said so far. Everything runs on the context it was started on.
 */
public final class KubernetesSource implements SchedSource {
    private static final Logger LOG = Logger.getLogger(KubernetesSource.class.getName());
    /** Pods that still hold or wait for cards: finished ones are left to the API server. */
    static final String PODS = "/api/v1/pods?fieldSelector=status.phase%21%3DSucceeded%2Cstatus.phase%21%3DFailed";
    static final String NODES = "/api/v1/nodes";
    /** Events about pods: preemptions (scheduler) and evictions (kubelet, taint manager). */
    static final String EVENTS = "/api/v1/events?fieldSelector=involvedObject.kind%3DPod";

    private final Vertx vertx;
    private final KubeApi api;
    private final KubeCluster cluster;
    private final long retryMs;
    private final LongSupplier clockMs;
    private final DrainNotices drains = new DrainNotices();
    private final List<Resource> resources = new ArrayList<>();
    private SchedInputError problem;
    private boolean closed;

    /** One kind of object listed and watched. */
    private final class Resource {
        final String path;
        final Apply apply;
        boolean listed;
        String version;

        Resource(String path, Apply apply) {
            this.path = path;
            this.apply = apply;
        }
    }

    /** Applies a list ({@code type} null) or one watch event to the cluster. */
    private interface Apply {
        void apply(String type, JsonObject object, String at, JsonInput in) throws SchedInputError;
    }

    /**
     * @param pool    the queue name the cluster's GPUs are reported under
     * @param retryMs the wait before listing again after a failure or an expired watch
     */
    public KubernetesSource(Vertx vertx, KubeApi api, String pool, long retryMs, LongSupplier clockMs) {
        this.vertx = vertx;
        this.api = api;
        this.cluster = new KubeCluster(pool);
        this.retryMs = retryMs;
        this.clockMs = clockMs;
        resources.add(new Resource(NODES, (type, o, at, in) -> {
            if (type == null) {
                cluster.listNodes(o, in);
            } else {
                cluster.nodeEvent(type, o, at, in);
            }
        }));
        resources.add(new Resource(PODS, (type, o, at, in) -> {
            if (type == null) {
                cluster.listPods(o, in, clockMs.getAsLong());
            } else {
                cluster.podEvent(type, o, at, in, clockMs.getAsLong());
            }
        }));
        // after the pods: an eviction counts only for a pod known to ask for cards
        resources.add(new Resource(EVENTS, (type, o, at, in) -> {
            if (type == null) {
                cluster.listEvents(o, in);
            } else {
                cluster.eventEvent(type, o, at, in);
            }
        }));
    }

    @Override
    public String describe() {
        return "kubernetes (" + api.base() + ")";
    }

    /** Lists every resource, one after the other, and starts their watches; completes when all were listed once. */
    @Override
    public Future<Void> start() {
        Future<Void> chain = Future.succeededFuture();
        for (Resource r : resources) {
            chain = chain.compose(v -> list(r).otherwiseEmpty());
        }
        return chain;
    }

    @Override
    public Future<List<Frame>> read(long nowMs) {
        if (problem != null) {
            SchedInputError p = problem;
            problem = null;
            return Future.failedFuture(p);
        }
        for (Resource r : resources) {
            if (!r.listed) {
                return Future.failedFuture(new SchedInputError(api.base() + r.path, "not listed yet"));
            }
        }
        return Future.succeededFuture(SchedProducer.frames(List.of(cluster.reading(nowMs)), drains, nowMs));
    }

    @Override
    public Future<Void> close() {
        closed = true;
        return api.close();
    }

    private Future<Void> list(Resource r) {
        return api.list(r.path).compose(list -> {
            JsonInput in = new JsonInput(api.base() + r.path);
            try {
                r.apply.apply(null, list, "", in);
                JsonObject meta = in.object(list, "", "metadata");
                r.version = meta == null ? null : in.string(meta, "metadata", "resourceVersion");
                if (r.version == null) {
                    throw in.error("metadata.resourceVersion", "missing: the list cannot be watched from it");
                }
            } catch (SchedInputError e) {
                return Future.failedFuture(e);
            }
            r.listed = true;
            watch(r);
            return Future.<Void>succeededFuture();
        }).onFailure(e -> {
            failed(r, e);
            later(() -> list(r));
        });
    }

    private void watch(Resource r) {
        if (closed) {
            return;
        }
        JsonInput in = new JsonInput(api.base() + r.path + " (watch)");
        boolean[] expired = {false};
        api.watch(r.path, r.version, event -> {
            String type = event.getString("type");
            JsonObject object = event.getJsonObject("object");
            if (type == null || object == null) {
                failed(r, in.error("", "a watch event without type or object"));
                return;
            }
            if (type.equals("ERROR")) {
                // 410 Gone: the version is older than the server keeps; anything else ends this watch too
                expired[0] = true;
                if (!Integer.valueOf(410).equals(object.getInteger("code"))) {
                    failed(r, in.error("object", "the API server ended the watch: " + object.getString("message")));
                }
                return;
            }
            try {
                if (!type.equals("BOOKMARK")) {
                    r.apply.apply(type, object, "object", in);
                }
                JsonObject meta = object.getJsonObject("metadata");
                String version = meta == null ? null : meta.getString("resourceVersion");
                if (version != null) {
                    r.version = version;
                }
            } catch (SchedInputError | ClassCastException e) {
                failed(r, e);
            }
        }).onComplete(ar -> {
            if (closed) {
                return;
            }
            if (ar.failed()) {
                failed(r, ar.cause());
                later(() -> list(r));
            } else if (expired[0]) {
                LOG.fine(() -> describe() + ": watch of " + r.path + " expired, listing again");
                list(r);
            } else {
                watch(r); // the server ends every watch after a while: resume where it stopped
            }
        });
    }

    /** Keeps the first problem since the last read: it is the cause, what follows is often its consequence. */
    private void failed(Resource r, Throwable e) {
        if (problem != null) {
            return;
        }
        problem = e instanceof SchedInputError s ? s
                : new SchedInputError(api.base() + r.path, e.getMessage() == null ? e.toString() : e.getMessage());
    }

    private void later(Runnable action) {
        vertx.setTimer(retryMs, id -> {
            if (!closed) {
                action.run();
            }
        });
    }
}
