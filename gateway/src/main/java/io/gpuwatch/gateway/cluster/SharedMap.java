package io.gpuwatch.gateway.cluster;

import io.vertx.core.Future;
import io.vertx.core.shareddata.AsyncMap;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Logger;

/**
 * A cluster map of records of one {@link SharedForm}, each key holding its latest version: a write only replaces
 * an older version, by compare-and-set, so gateways writing at once end with the same winner whatever the order.
 * An entry that does not read (another version of gpuwatch, garbage) is skipped with a warning naming its key,
 * and a newer write replaces it.
 */
final class SharedMap<T> {
    private static final Logger LOG = Logger.getLogger(SharedMap.class.getName());
    /** Compare-and-set rounds lost to other writers before a write gives up. */
    private static final int TRIES = 8;

    private final AsyncMap<String, String> map;
    private final SharedForm<T> form;

    SharedMap(AsyncMap<String, String> map, SharedForm<T> form) {
        this.map = map;
        this.form = form;
    }

    SharedForm<T> form() {
        return form;
    }

    /** Writes {@code record} unless the map holds it or a newer version; true when the map now holds it. */
    Future<Boolean> offer(T record) {
        return offer(form.key(record), form.encode(record), record, TRIES);
    }

    private Future<Boolean> offer(String key, String text, T record, int tries) {
        if (tries == 0) {
            return Future.failedFuture(form.kind() + " " + key + ": other gateways kept writing it; gave up after "
                    + TRIES + " tries");
        }
        return map.get(key).compose(old -> {
            if (old == null) {
                return map.putIfAbsent(key, text)
                        .compose(prev -> prev == null ? Future.succeededFuture(true) : offer(key, text, record, tries - 1));
            }
            T held = read(key, old);
            if (held != null && !form.newer(record, held)) {
                return Future.succeededFuture(false);
            }
            return map.replaceIfPresent(key, old, text)
                    .compose(done -> done ? Future.succeededFuture(true) : offer(key, text, record, tries - 1));
        });
    }

    /** The record under {@code key}; null when there is none or it does not read. */
    Future<T> get(String key) {
        return map.get(key).map(text -> text == null ? null : read(key, text));
    }

    /** Every record that reads. */
    Future<List<T>> all() {
        return map.entries().map(entries -> {
            List<T> out = new ArrayList<>();
            entries.forEach((key, text) -> {
                T record = read(key, text);
                if (record != null) {
                    out.add(record);
                }
            });
            return out;
        });
    }

    /** The record {@code text} holds, or null after a warning naming {@code key}. */
    T read(String key, String text) {
        try {
            return form.decode(key, text);
        } catch (IllegalArgumentException e) {
            LOG.warning("skipped a shared record: " + e.getMessage());
            return null;
        } catch (RuntimeException e) {
            LOG.warning("skipped a shared record: " + form.kind() + " " + key + ": " + e);
            return null;
        }
    }
}
