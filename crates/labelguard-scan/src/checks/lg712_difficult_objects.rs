//! LG712 difficult-objects: objects flagged difficult, truncated or crowd, counted.
//! Documentation: `labelguard_core::rules::lg712_difficult_objects`.
