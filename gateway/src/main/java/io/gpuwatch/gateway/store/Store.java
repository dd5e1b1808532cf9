package io.gpuwatch.gateway.store;

import org.h2.api.ErrorCode;
import org.h2.mvstore.DataUtils;
import org.h2.mvstore.MVStore;
import org.h2.mvstore.MVStoreException;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Objects;
import java.util.Properties;
import java.util.function.Function;

/**
 * The gateway's durable store: live alerts and their history, acknowledgements, silences, the notification log,
 * the outbox, the audit log and the usage history, in one embedded H2 file. Every write is committed and forced
 * to disk before the call returns, so a {@code kill -9} right after loses nothing the caller was told is stored.
 *
 * <p>Blocking and not for concurrent use: run it on one dedicated thread ({@link AsyncStore} does that), never
 * on a Vert.x event loop. Calls are serialised, so a second thread can only wait, never interleave.
 */
public final class Store implements AutoCloseable {
    /** What every file of the store ends with; H2 adds it to the database name. */
    public static final String SUFFIX = ".mv.db";

    // WRITE_DELAY=0: a COMMIT writes its MVStore chunk before it returns (the default 500 ms would leave it in
    // memory); DB_CLOSE_ON_EXIT=FALSE: we close it ourselves, not a shutdown hook racing the writer thread.
    private static final String SETTINGS = ";WRITE_DELAY=0;DB_CLOSE_ON_EXIT=FALSE";

    private final Path file;
    private final Connection conn;
    private final InstantSource clock;
    private final AlertTable alerts;
    private final AckTable acks;
    private final SilenceTable silences;
    private final NotificationLog notificationLog;
    private final Outbox outbox;
    private final AuditTable audit;
    private final EscalationTable escalations;
    private final UsageHistory usageHistory;
    private int depth;
    private boolean dirty;
    private boolean closed;

    private Store(Path file, Connection conn, InstantSource clock, Backoff backoff) {
        this.file = file;
        this.conn = conn;
        this.clock = clock;
        this.alerts = new AlertTable(this);
        this.acks = new AckTable(this);
        this.silences = new SilenceTable(this);
        this.notificationLog = new NotificationLog(this);
        this.outbox = new Outbox(this, backoff);
        this.audit = new AuditTable(this);
        this.escalations = new EscalationTable(this);
        this.usageHistory = new UsageHistory(this);
    }

    /**
     * Opens the store at {@code file} (a path ending in {@code .mv.db}; the suffix is added when missing),
     * creating it with the current schema when absent and migrating an older schema in place. A file that is
     * corrupt, not a gpuwatch store, from a newer gpuwatch or in use by another process is left untouched
     * and refused with a {@link StoreException} that says what to do.
     */
    public static Store open(Path file, InstantSource clock, Backoff backoff) {
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(backoff, "backoff");
        Path f = withSuffix(file.toAbsolutePath().normalize());
        try {
            Files.createDirectories(f.getParent());
        } catch (IOException e) {
            throw new StoreException("store " + f + ": cannot create its directory: " + e.getMessage(), e);
        }
        if (Files.exists(f)) {
            checkReadable(f);
        } else {
            create(f);
        }
        Connection c;
        try {
            c = connect(base(f) + SETTINGS + ";IFEXISTS=TRUE");
        } catch (SQLException e) {
            throw refused(f, e.getErrorCode() == ErrorCode.DATABASE_ALREADY_OPEN_1, e.getMessage(), e);
        }
        try {
            c.setAutoCommit(false);
            Schema.migrate(c, f, false);
        } catch (SQLException | RuntimeException e) {
            closeQuietly(c);
            if (e instanceof StoreException se) {
                throw se;
            }
            throw new StoreException("store " + f + ": cannot read or migrate its schema: " + e.getMessage(), e);
        }
        Store store = new Store(f, c, clock, backoff);
        // the file lock proves the process that held these leases is gone, so its rows are free again now
        store.outbox.releaseLeases();
        return store;
    }

    /** The file this store lives in. */
    public Path file() {
        return file;
    }

    /** Live alerts and their history. */
    public AlertTable alerts() {
        return alerts;
    }

    /** Acknowledgements of alerts. */
    public AckTable acks() {
        return acks;
    }

    /** Silences, expired ones included. */
    public SilenceTable silences() {
        return silences;
    }

    /** What was delivered to whom, to decide whether something was already sent. */
    public NotificationLog notificationLog() {
        return notificationLog;
    }

    /** Who changed what through the API. */
    public AuditTable audit() {
        return audit;
    }

    /** Where each alert's escalation stands. */
    public EscalationTable escalations() {
        return escalations;
    }

    /** The downsampled usage history of tasks and queues, for the capacity report. */
    public UsageHistory usageHistory() {
        return usageHistory;
    }

    /** Notifications waiting for delivery, with their attempts. */
    public Outbox outbox() {
        return outbox;
    }

    /**
     * Runs {@code work} as one transaction: everything it writes through this store is committed and forced
     * to disk together when it returns, or none of it when it throws. Calls may nest; only the outermost
     * commits.
     */
    public synchronized <T> T transact(Function<Store, T> work) {
        checkOpen();
        if (depth > 0) {
            return work.apply(this);
        }
        depth = 1;
        dirty = false;
        try {
            T result = work.apply(this);
            conn.commit();
            if (dirty) {
                sync();
            }
            return result;
        } catch (SQLException e) {
            rollback();
            throw new StoreException("store " + file + ": commit failed: " + e.getMessage(), e);
        } catch (RuntimeException | Error e) {
            rollback();
            throw e;
        } finally {
            depth = 0;
        }
    }

    /** Closes the file; committed data is already on disk, so this only tidies up. */
    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            try {
                conn.close();
            } catch (SQLException e) {
                throw new StoreException("store " + file + ": close failed: " + e.getMessage(), e);
            }
        }
    }

    /** One unit of JDBC work. */
    @FunctionalInterface
    interface Sql<T> {
        T run(Connection c) throws SQLException;
    }

    /** Runs a read inside the current transaction (or its own); {@code what} names it in errors. */
    <T> T read(String what, Sql<T> sql) {
        return transact(s -> {
            try {
                return sql.run(conn);
            } catch (SQLException e) {
                throw new StoreException("store " + file + ": cannot " + what + ": " + e.getMessage(), e);
            }
        });
    }

    /** Like {@link #read}, and marks the transaction as one that must be forced to disk. */
    <T> T write(String what, Sql<T> sql) {
        return transact(s -> {
            dirty = true;
            try {
                return sql.run(conn);
            } catch (SQLException e) {
                throw new StoreException("store " + file + ": cannot " + what + ": " + e.getMessage(), e);
            }
        });
    }

    Instant now() {
        return clock.instant();
    }

    private void sync() throws SQLException {
        // WRITE_DELAY=0 already put the commit into the file (enough for kill -9); this fsyncs it for power loss
        try (Statement st = conn.createStatement()) {
            st.execute("CHECKPOINT SYNC");
        }
    }

    private void rollback() {
        try {
            conn.rollback();
        } catch (SQLException ignored) {
            // the original failure is the one worth reporting; the session discards the transaction anyway
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new StoreException("store " + file + " is closed");
        }
    }

    private static Path withSuffix(Path f) {
        String name = f.getFileName().toString();
        return name.endsWith(SUFFIX) ? f : f.resolveSibling(name + SUFFIX);
    }

    private static String base(Path f) {
        String s = f.toString();
        return s.substring(0, s.length() - SUFFIX.length());
    }

    /**
     * Reads the file's MVStore read-only before H2 opens it for writing: H2 would quietly start afresh on a
     * file whose chunks it cannot find, overwriting what a recovery tool could still read.
     */
    private static void checkReadable(Path f) {
        try {
            MVStore mv = new MVStore.Builder().fileName(f.toString()).readOnly().open();
            try {
                if (mv.getMapNames().isEmpty()) {
                    throw refused(f, false, "it holds no data", null);
                }
            } finally {
                mv.close();
            }
        } catch (MVStoreException e) {
            throw refused(f, e.getErrorCode() == DataUtils.ERROR_FILE_LOCKED, e.getMessage(), e);
        } catch (StoreException e) {
            throw e;
        } catch (RuntimeException e) {
            throw refused(f, false, e.toString(), e);
        }
    }

    private static StoreException refused(Path f, boolean locked, String reason, Throwable cause) {
        if (locked) {
            return new StoreException("store " + f + " is in use by another process (is another gateway running "
                    + "on the same data directory?); stop that one first", cause);
        }
        String name = f.getFileName().toString();
        return new StoreException("store " + f + " cannot be opened: it is damaged or not a gpuwatch store ("
                + reason + "). It was left untouched and the gateway will not run on it. To start with an empty "
                + "store, move it aside (mv " + f + " " + f + ".bad) and start again; the alerts, silences, "
                + "acknowledgements and pending notifications in it are then not restored. To salvage it, run "
                + "H2's recovery tool: java -cp h2.jar org.h2.tools.Recover -dir " + f.getParent() + " -db "
                + name.substring(0, name.length() - SUFFIX.length()), cause);
    }

    /** Creates the schema under a scratch name and renames it into place, so a half-made store never exists. */
    private static void create(Path f) {
        Path scratch = Path.of(base(f) + ".creating" + SUFFIX);
        try {
            Files.deleteIfExists(scratch);
            try (Connection c = connect(base(scratch) + SETTINGS)) {
                c.setAutoCommit(false);
                Schema.migrate(c, f, true);
                try (Statement st = c.createStatement()) {
                    st.execute("SHUTDOWN");
                }
            }
            Files.move(scratch, f, StandardCopyOption.ATOMIC_MOVE);
            syncDirectory(f.getParent());
        } catch (SQLException | IOException e) {
            throw new StoreException("store " + f + ": cannot create it: " + e.getMessage(), e);
        }
    }

    private static void syncDirectory(Path dir) {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException e) {
            // some platforms cannot open a directory; there the rename is as durable as the OS makes it
        }
    }

    /** Straight to H2's driver: a shaded jar may not carry the driver's service registration for DriverManager. */
    private static Connection connect(String path) throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", "sa");
        p.setProperty("password", "");
        return org.h2.Driver.load().connect("jdbc:h2:file:" + path, p);
    }

    private static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException ignored) {
            // already failing with a better message
        }
    }
}
