package io.gpuwatch.gateway.state;

import io.gpuwatch.rules.scope.ScopeView;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;

/** Events of a task or business: those of its member cards, counted together. */
final class MemberEvents {
    /** Codes in numeric order where both are numbers (xid 8 before 79), else by text. */
    private static final Comparator<String> ORDER = (a, b) -> {
        boolean na = !a.isEmpty() && a.chars().allMatch(Character::isDigit);
        boolean nb = !b.isEmpty() && b.chars().allMatch(Character::isDigit);
        if (na && nb) {
            return a.length() != b.length() ? Integer.compare(a.length(), b.length()) : a.compareTo(b);
        }
        return a.compareTo(b);
    };

    private MemberEvents() {
    }

    static int count(List<? extends ScopeView> members, String kind, int code, long windowMs) {
        // indexed: node rules count their cards' events on every tick, and the iterator was allocated each time
        int n = 0;
        for (int i = 0; i < members.size(); i++) {
            n += members.get(i).countEvents(kind, code, windowMs);
        }
        return n;
    }

    static List<String> distinct(List<? extends ScopeView> members, String kind, int code, long windowMs) {
        TreeSet<String> all = new TreeSet<>(ORDER);
        for (ScopeView m : members) {
            all.addAll(m.distinctEvents(kind, code, windowMs));
        }
        return new ArrayList<>(all);
    }
}
