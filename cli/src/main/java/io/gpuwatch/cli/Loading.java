package io.gpuwatch.cli;

import io.gpuwatch.gateway.cost.Pricing;
import io.gpuwatch.gateway.cost.PricingFile;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.gpuwatch.rules.source.Diagnostic;

import io.gpuwatch.cli.alerting.MentionRef;
import io.gpuwatch.cli.alerting.OnCallMentions;
import io.gpuwatch.gateway.reload.WatchedFile;
import io.gpuwatch.gateway.schedule.Roster;
import io.gpuwatch.gateway.schedule.RosterLoad;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;

/** Loads rule, pricing and on-call files for a command, printing every diagnostic with its position. */
final class Loading {
    private Loading() {
    }

    /** The rule set, or null after printing why it could not be loaded. */
    static RuleSet rules(List<Path> paths, PrintWriter err) {
        List<Path> use = paths == null || paths.isEmpty() ? List.of(Home.resolve("examples/rules")) : paths;
        RuleLoad load = RuleSet.load(use);
        for (Diagnostic d : load.diagnostics()) {
            err.println(d);
        }
        err.flush();
        return load.ok() ? load.ruleSet() : null;
    }

    /** The prices of {@code file}, {@link Pricing#NONE} without one, or null after printing why it was refused. */
    static Pricing pricing(Path file, PrintWriter err) {
        if (file == null) {
            return Pricing.NONE;
        }
        PricingFile.Load load = PricingFile.read(file);
        load.errors().forEach(err::println);
        err.flush();
        return load.pricing();
    }

    /**
     * Reads an on-call file for the gateway, at start and again when it changes or on SIGHUP: every diagnostic
     * goes to {@code problems} at its file:line:col, and a file with errors, or without a schedule or layer that
     * {@code mentions} (the alerting file's {@code mention:}s) name, gives null, so the roster in force stays.
     */
    static WatchedFile.Reader<Roster> rosterReader(List<MentionRef> mentions) {
        return (file, problems) -> {
            RosterLoad load = Roster.load(file);
            load.diagnostics().forEach(d -> problems.accept(d.toString()));
            if (!load.ok()) {
                return null;
            }
            List<String> missing = OnCallMentions.problems(load.roster(), mentions);
            missing.forEach(problems);
            return missing.isEmpty() ? load.roster() : null;
        };
    }

    /** The roster of an on-call file, {@link Roster#EMPTY} without one, or null after printing its errors. */
    static Roster roster(Path file, PrintWriter err) {
        if (file == null) {
            return Roster.EMPTY;
        }
        RosterLoad load = Roster.load(file);
        load.diagnostics().forEach(err::println);
        err.flush();
        return load.roster();
    }
}
