package io.gpuwatch.gateway.store;

import io.gpuwatch.gateway.alert.Alert;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Every acknowledgement ever given, kept for audit; the newest one of a fingerprint is the one in force. */
public final class AckTable {
    private final Store store;

    AckTable(Store store) {
        this.store = store;
    }

    /** Records {@code ack}; returns its id. */
    public long add(Acknowledgement ack) {
        return store.write("save the acknowledgement of " + ack.fingerprint(), c -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO ack (fingerprint, acked_by, acked_at, "
                    + "ack_comment, source, withdrawn) VALUES (?, ?, ?, ?, ?, ?)", new String[] {"ID"})) {
                ps.setString(1, ack.fingerprint());
                ps.setString(2, ack.by());
                ps.setLong(3, ack.at().toEpochMilli());
                ps.setString(4, ack.comment());
                ps.setString(5, ack.source());
                ps.setBoolean(6, ack.withdrawn());
                ps.executeUpdate();
                try (ResultSet keys = ps.getGeneratedKeys()) {
                    keys.next();
                    return keys.getLong(1);
                }
            }
        });
    }

    /** The acknowledgements of {@code fingerprint}, withdrawals included, newest first. */
    public List<Acknowledgement> of(String fingerprint) {
        return store.read("read the acknowledgements of " + fingerprint, c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT fingerprint, acked_by, acked_at, ack_comment, "
                    + "source, withdrawn FROM ack WHERE fingerprint = ? ORDER BY acked_at DESC, id DESC")) {
                ps.setString(1, fingerprint);
                List<Acknowledgement> out = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(new Acknowledgement(rs.getString(1), rs.getString(2),
                                Instant.ofEpochMilli(rs.getLong(3)), rs.getString(4), rs.getString(5), rs.getBoolean(6)));
                    }
                }
                return out;
            }
        });
    }

    /** The newest acknowledgement (or withdrawal) of {@code fingerprint}, if any. */
    public Optional<Acknowledgement> latest(String fingerprint) {
        return of(fingerprint).stream().findFirst();
    }

    /**
     * The acknowledgement in force for each of {@code alerts}, given during its current episode: one given before
     * the alert last became active belongs to an earlier episode, which has resolved since, so it is left out,
     * and so is one withdrawn since.
     */
    public List<Acknowledgement> inForce(List<Alert> alerts) {
        List<Acknowledgement> out = new ArrayList<>();
        for (Alert a : alerts) {
            latest(a.fingerprint()).filter(ack -> !ack.withdrawn() && ack.at().toEpochMilli() >= a.activeSince())
                    .ifPresent(out::add);
        }
        return out;
    }
}
