//! LG702 unknown-category: objects whose category the dataset does not declare: a COCO
//! `category_id` that no `categories` entry has, a VOC `<name>` outside the class list (with
//! the nearest name when it looks like a typo).
//! Documentation: `labelguard_core::rules::lg702_unknown_category`.
