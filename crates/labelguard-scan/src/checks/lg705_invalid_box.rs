//! LG705 invalid-box: boxes without area (zero or negative width or height, inverted corners)
//! or with a coordinate that is not a finite number.
//! Documentation: `labelguard_core::rules::lg705_invalid_box`.
