//! The findings of a file that cannot be read at all, one file per rule, named like the
//! rule's documentation in `labelguard_core::rules`: the walker, the sources and the readers
//! call them with plain data (an I/O error, a decoder's message, a size and its limit). The
//! scan's `checks` names them beside the rules it checks itself.

pub mod lg601_unreadable_file;
pub mod lg602_corrupt_file;
pub mod lg603_empty_file;
pub mod lg604_decompression_bomb;
