//! The checks of the dataset rules (LG6xx) that need the scan's inputs: one file per rule,
//! named like the rule's documentation in `labelguard_core::rules`, opening with the rule it
//! implements and holding the function that decides and builds its finding.

pub mod lg609_class_never_seen;
pub mod lg610_class_in_one_split;
pub mod lg611_class_imbalance;
