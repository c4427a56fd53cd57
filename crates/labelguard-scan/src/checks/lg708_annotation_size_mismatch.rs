//! LG708 annotation-size-mismatch: the size an annotation records (a COCO RLE's `size`, VOC's
//! `<size>`, a COCO image's `width`/`height`) against the image.
//! Documentation: `labelguard_core::rules::lg708_annotation_size_mismatch`.
