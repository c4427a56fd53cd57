//! The finding for a path or a file the scan cannot use (unreadable, corrupt, empty, too large,
//! missing, not a file): the walker, the readers and the layouts build these with
//! [`problem`] and the rule's own severity; like every other finding it is a
//! [`labelguard_core::Finding`].

use labelguard_core::{Finding, Rule, Severity, Verdict};

/// A finding of `rule` with its own severity, and the verdict that says what happens to
/// training: an error-severity problem crashes the DataLoader (a host error), anything else
/// passes silently.
pub fn problem(rule: &'static Rule, message: impl Into<String>) -> Finding {
    let verdict = match rule.severity {
        Severity::Error => Verdict::Error,
        _ => Verdict::Silent,
    };
    Finding::new(rule, verdict, message)
}
