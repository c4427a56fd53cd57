//! Label arrays are read by `labelguard-io`; its read errors, as the findings that report them.

use crate::checks::lg601_unreadable_file::io_problem;
use crate::checks::lg602_corrupt_file;
use crate::checks::lg603_empty_file::empty_file;
use crate::checks::lg604_decompression_bomb;
use labelguard_core::Finding;

/// The finding for an array file `labelguard-io` could not read.
pub fn array_read_problem(e: labelguard_io::ReadError) -> Finding {
    use labelguard_io::ReadError as E;
    match e {
        E::Io { error, .. } => io_problem("cannot read", &error),
        E::UnknownFormat { .. } => lg602_corrupt_file::not_an_array(),
        E::TooLarge { message, .. } => lg604_decompression_bomb::array_too_large(&message),
        E::Malformed { message, .. } => {
            if message.contains("empty") {
                empty_file()
            } else {
                lg602_corrupt_file::corrupt_array(&message)
            }
        }
    }
}
