//! LG711 duplicate-annotation: the same object annotated twice (identical YOLO lines, identical
//! COCO annotations).
//! Documentation: `labelguard_core::rules::lg711_duplicate_annotation`.
