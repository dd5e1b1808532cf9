package io.gpuwatch.gateway.store;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/** The store's tables, as numbered migrations; the number reached is kept in {@code schema_version}. */
final class Schema {
    /**
     * Migration n (from 1) takes a store from version n−1 to n. Append only: never edit a released one. H2
     * commits DDL at once, so a later migration must be safe to run again (IF NOT EXISTS) after a crash cut it
     * short; the first runs on a scratch file that is only renamed into place when complete.
     */
    private static final List<List<String>> MIGRATIONS = List.of(List.of(
            "CREATE TABLE schema_version (version INT NOT NULL)",
            "INSERT INTO schema_version VALUES (0)",
            """
            CREATE TABLE alert (
              fingerprint VARCHAR(64) PRIMARY KEY,
              rule VARCHAR NOT NULL,
              severity VARCHAR NOT NULL,
              labels VARCHAR NOT NULL,
              annotations VARCHAR NOT NULL,
              alert_state VARCHAR(16) NOT NULL,
              active_since BIGINT NOT NULL,
              fired_at BIGINT NOT NULL,
              resolved_at BIGINT NOT NULL,
              last_transition BIGINT NOT NULL)""",
            "CREATE INDEX alert_by_state ON alert (alert_state)",
            """
            CREATE TABLE alert_history (
              seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
              fingerprint VARCHAR(64) NOT NULL,
              rule VARCHAR NOT NULL,
              from_state VARCHAR(16),
              to_state VARCHAR(16) NOT NULL,
              changed_at BIGINT NOT NULL)""",
            "CREATE INDEX alert_history_by_fingerprint ON alert_history (fingerprint, seq)",
            "CREATE INDEX alert_history_by_time ON alert_history (changed_at)",
            """
            CREATE TABLE ack (
              id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
              fingerprint VARCHAR(64) NOT NULL,
              acked_by VARCHAR NOT NULL,
              acked_at BIGINT NOT NULL,
              ack_comment VARCHAR NOT NULL,
              source VARCHAR NOT NULL)""",
            "CREATE INDEX ack_by_fingerprint ON ack (fingerprint, acked_at)",
            """
            CREATE TABLE silence (
              id VARCHAR(64) PRIMARY KEY,
              matchers VARCHAR NOT NULL,
              starts_at BIGINT NOT NULL,
              ends_at BIGINT NOT NULL,
              created_by VARCHAR NOT NULL,
              silence_comment VARCHAR NOT NULL,
              updated_at BIGINT NOT NULL)""",
            """
            CREATE TABLE notification_log (
              receiver VARCHAR NOT NULL,
              nkey VARCHAR NOT NULL,
              firing_hash VARCHAR(64) NOT NULL,
              resolved_hash VARCHAR(64) NOT NULL,
              sent_at BIGINT NOT NULL,
              PRIMARY KEY (receiver, nkey))""",
            """
            CREATE TABLE outbox (
              id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
              receiver VARCHAR NOT NULL,
              dedup_key VARCHAR NOT NULL,
              payload CHARACTER LARGE OBJECT NOT NULL,
              created_at BIGINT NOT NULL,
              attempts INT NOT NULL,
              next_attempt_at BIGINT NOT NULL,
              last_error VARCHAR,
              row_state VARCHAR(8) NOT NULL,
              lease_token VARCHAR(36),
              lease_until BIGINT,
              sent_at BIGINT)""",
            "CREATE INDEX outbox_due ON outbox (row_state, next_attempt_at, id)"),
            // a claim looks for an older pending row of the same group, which holds the newer one back
            List.of("CREATE INDEX IF NOT EXISTS outbox_by_group ON outbox (receiver, dedup_key, row_state, id)"),
            // who changed what through the API, and from where
            List.of("""
                    CREATE TABLE IF NOT EXISTS audit (
                      id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                      at BIGINT NOT NULL,
                      who VARCHAR NOT NULL,
                      action VARCHAR NOT NULL,
                      target VARCHAR NOT NULL,
                      detail VARCHAR NOT NULL,
                      remote VARCHAR NOT NULL)"""),
            // which alerts each outbox row tells of, and every attempt to send it, so the API can show an alert's
            // deliveries and a receiver's health; an acknowledgement can be withdrawn
            List.of("""
                    CREATE TABLE IF NOT EXISTS outbox_alert (
                      fingerprint VARCHAR(64) NOT NULL,
                      outbox_id BIGINT NOT NULL,
                      PRIMARY KEY (fingerprint, outbox_id))""",
                    """
                    CREATE TABLE IF NOT EXISTS outbox_attempt (
                      id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                      outbox_id BIGINT NOT NULL,
                      receiver VARCHAR NOT NULL,
                      attempted_at BIGINT NOT NULL,
                      outcome VARCHAR(8) NOT NULL,
                      error VARCHAR)""",
                    "CREATE INDEX IF NOT EXISTS outbox_attempt_by_row ON outbox_attempt (outbox_id, id)",
                    "CREATE INDEX IF NOT EXISTS outbox_attempt_by_receiver ON outbox_attempt (receiver, outcome, id)",
                    "ALTER TABLE ack ADD COLUMN IF NOT EXISTS withdrawn BOOLEAN DEFAULT FALSE NOT NULL"),
            // where each alert's escalation stands, so a restart resumes it at the step and deadline it had
            List.of("""
                    CREATE TABLE IF NOT EXISTS escalation (
                      fingerprint VARCHAR(64) PRIMARY KEY,
                      active_since BIGINT NOT NULL,
                      policy VARCHAR NOT NULL,
                      round INT NOT NULL,
                      step INT NOT NULL,
                      deadline BIGINT,
                      escalation_state VARCHAR(16) NOT NULL)"""),
            // the downsampled usage history the capacity report reads (docs/capacity.md)
            List.of("""
                    CREATE TABLE IF NOT EXISTS usage_minute (
                      at BIGINT NOT NULL,
                      span_ms BIGINT NOT NULL,
                      task VARCHAR NOT NULL,
                      owner VARCHAR,
                      business VARCHAR,
                      queue_name VARCHAR,
                      workload VARCHAR,
                      pool VARCHAR,
                      card_model VARCHAR,
                      held INT NOT NULL,
                      busy INT NOT NULL,
                      idle INT NOT NULL,
                      reclaimable INT NOT NULL,
                      requested DOUBLE PRECISION,
                      mem_requested DOUBLE PRECISION,
                      mem_used DOUBLE PRECISION,
                      cost_per_hour DOUBLE PRECISION,
                      achieved_flops DOUBLE PRECISION,
                      peak_flops DOUBLE PRECISION,
                      tokens_per_sec DOUBLE PRECISION)""",
                    "CREATE INDEX IF NOT EXISTS usage_minute_by_time ON usage_minute (at)",
                    """
                    CREATE TABLE IF NOT EXISTS queue_minute (
                      at BIGINT NOT NULL,
                      span_ms BIGINT NOT NULL,
                      queue_name VARCHAR NOT NULL,
                      pending DOUBLE PRECISION,
                      pending_cards DOUBLE PRECISION,
                      wait_p50_s DOUBLE PRECISION,
                      wait_max_s DOUBLE PRECISION,
                      cards_allocated DOUBLE PRECISION,
                      cards_total DOUBLE PRECISION)""",
                    "CREATE INDEX IF NOT EXISTS queue_minute_by_time ON queue_minute (at)"),
            // which alerts each group's receiver was last told fire, so a restart owes no resolve it cannot see
            List.of("ALTER TABLE notification_log ADD COLUMN IF NOT EXISTS firing_fps VARCHAR"));

    private Schema() {
    }

    /** The version this build writes. */
    static int latest() {
        return MIGRATIONS.size();
    }

    /**
     * Brings the schema to {@link #latest()}, one committed migration at a time. {@code fresh} says the file
     * was just created; an existing file without our version table is refused rather than adopted.
     */
    static void migrate(Connection c, Path file, boolean fresh) throws SQLException {
        int version;
        if (hasVersionTable(c)) {
            version = version(c);
        } else if (fresh) {
            version = 0;
        } else {
            throw new StoreException("store " + file + " is an H2 database but not a gpuwatch store (it has no "
                    + "schema_version table). It was left untouched; point the gateway at another file, or move "
                    + "this one aside (mv " + file + " " + file + ".bad) to start with an empty store");
        }
        if (version > latest()) {
            throw new StoreException("store " + file + " has schema version " + version + " but this gpuwatch "
                    + "knows versions up to " + latest() + "; it was written by a newer gpuwatch. Run that "
                    + "version, or move the file aside to start with an empty store");
        }
        for (int v = version + 1; v <= latest(); v++) {
            try (Statement st = c.createStatement()) {
                for (String sql : MIGRATIONS.get(v - 1)) {
                    st.execute(sql);
                }
            }
            try (PreparedStatement ps = c.prepareStatement("UPDATE schema_version SET version = ?")) {
                ps.setInt(1, v);
                ps.executeUpdate();
            }
            c.commit();
        }
    }

    private static boolean hasVersionTable(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES "
                + "WHERE TABLE_SCHEMA = 'PUBLIC' AND TABLE_NAME = 'SCHEMA_VERSION'");
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getInt(1) > 0;
        }
    }

    private static int version(Connection c) throws SQLException {
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT version FROM schema_version")) {
            if (!rs.next()) {
                throw new SQLException("schema_version is empty");
            }
            return rs.getInt(1);
        }
    }
}
