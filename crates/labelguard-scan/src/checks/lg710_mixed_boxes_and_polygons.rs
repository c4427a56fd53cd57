//! LG710 mixed-boxes-and-polygons: a YOLO dataset whose label lines are boxes in some places
//! and polygons in others.
//! Documentation: `labelguard_core::rules::lg710_mixed_boxes_and_polygons`.
