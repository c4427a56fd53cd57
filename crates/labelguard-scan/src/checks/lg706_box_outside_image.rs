//! LG706 box-outside-image: boxes and polygon points outside the image (COCO, VOC), and YOLO
//! coordinates outside `[0, 1]`.
//! Documentation: `labelguard_core::rules::lg706_box_outside_image`.
