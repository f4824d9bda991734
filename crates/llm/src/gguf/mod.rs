//! The header of a GGUF model file: what Settings shows about a model the
//! user brings (its name, size, quantisation, context length and chat
//! template) without loading it.
//!
//! A GGUF file starts with `GGUF`, a version, the tensor count and the
//! metadata: key, value type, value, repeated. Only that metadata is read;
//! the tensor infos and the weights after it are never touched, so reading
//! a 100 MB (or 40 GB) model costs a few megabytes of reads at most.
//!
//! The file is untrusted input (anything the user picks, or a half-finished
//! download), so every length in it is checked before it is used: a corrupt
//! or hostile header gives a [`GgufError`], never a panic or an allocation
//! sized by the file's claims rather than by its bytes.
//! [`parse_gguf_header`] is a pure function over a reader so that the fuzz
//! target can call it on arbitrary bytes.

use std::collections::HashSet;
use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::{Path, PathBuf};

#[cfg(test)]
mod tests;

/// `GGUF`, the first four bytes of every GGUF file.
pub const GGUF_MAGIC: [u8; 4] = *b"GGUF";

/// More metadata entries than any real model has (those have 20 to 60);
/// above it the count is corrupt, and saying so is clearer than running
/// into the end of the file a million entries later.
pub const MAX_METADATA_ENTRIES: u64 = 1_000_000;
/// The longest key; real keys are under 100 bytes.
pub const MAX_KEY_BYTES: u64 = 64 * 1024;
/// The longest string value, kept or skipped. Chat templates, the longest
/// strings in real headers, are tens of KiB (the largest seen are about
/// 256 KiB), so this leaves them plenty of room.
pub const MAX_STRING_BYTES: u64 = 1024 * 1024;
/// Arrays of arrays are legal but unused by real models; the limit keeps a
/// crafted chain of nested arrays from recursing until the stack overflows.
pub const MAX_ARRAY_DEPTH: u32 = 8;

/// What Settings shows about one model file.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct GgufInfo {
    /// `general.name`.
    pub name: Option<String>,
    /// `general.architecture`, such as `llama` or `qwen2`.
    pub architecture: Option<String>,
    /// The file's size in bytes.
    pub file_size: u64,
    /// The quantisation named from `general.file_type`, such as `Q4_K_M`;
    /// `type N` for a number this table does not know.
    pub quantisation: Option<String>,
    /// `{architecture}.context_length`: the longest context the model was
    /// trained for, in tokens.
    pub context_length: Option<u64>,
    /// `tokenizer.chat_template`, the Jinja template llama.cpp formats chat
    /// messages with.
    pub chat_template: Option<String>,
    /// The file is a multimodal projector (an `mmproj` file that gives a
    /// model sight), not a model that can answer on its own.
    pub is_projector: bool,
}

/// A parsed header: the fixed fields and every metadata entry, in file order.
#[derive(Debug, Clone, PartialEq)]
pub struct GgufHeader {
    pub version: u32,
    pub tensor_count: u64,
    pub metadata: Vec<(String, GgufValue)>,
}

/// One metadata value. Arrays are skipped rather than kept (see
/// [`GgufValue::Array`]).
#[derive(Debug, Clone, PartialEq)]
pub enum GgufValue {
    U8(u8),
    I8(i8),
    U16(u16),
    I16(i16),
    U32(u32),
    I32(i32),
    F32(f32),
    Bool(bool),
    /// Invalid UTF-8 is replaced rather than refused: llama.cpp does not
    /// check it either, so refusing would turn away models it loads.
    String(String),
    /// Only the element type and count of an array. Arrays hold the
    /// vocabulary (`tokenizer.ggml.tokens`: 50,000 to 250,000 strings, and
    /// as many scores and merges), megabytes that nothing here needs, so
    /// their elements are read and discarded.
    Array {
        element_type: u32,
        len: u64,
    },
    U64(u64),
    I64(i64),
    F64(f64),
}

impl GgufValue {
    /// The value as a string, if it is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Self::String(text) => Some(text),
            _ => None,
        }
    }

    /// The value as an unsigned integer, if it is an integer of any width
    /// that is not negative: writers store counts as u32 or u64 (and
    /// sometimes signed) as they please.
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            Self::U8(n) => Some(n.into()),
            Self::U16(n) => Some(n.into()),
            Self::U32(n) => Some(n.into()),
            Self::U64(n) => Some(n),
            Self::I8(n) => u64::try_from(n).ok(),
            Self::I16(n) => u64::try_from(n).ok(),
            Self::I32(n) => u64::try_from(n).ok(),
            Self::I64(n) => u64::try_from(n).ok(),
            _ => None,
        }
    }
}

impl GgufHeader {
    /// The value of `key`, if the header has it.
    pub fn get(&self, key: &str) -> Option<&GgufValue> {
        self.metadata
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, value)| value)
    }

    /// What Settings shows, for a file of `file_size` bytes.
    pub fn info(&self, file_size: u64) -> GgufInfo {
        let text = |key: &str| self.get(key).and_then(GgufValue::as_str).map(str::to_owned);
        let architecture = text("general.architecture");
        let context_length = architecture
            .as_deref()
            .and_then(|arch| self.get(&format!("{arch}.context_length")))
            .and_then(GgufValue::as_u64);
        let is_projector = architecture.as_deref() == Some("clip")
            || self
                .metadata
                .iter()
                .any(|(key, _)| key.starts_with("clip."));
        GgufInfo {
            name: text("general.name"),
            file_size,
            quantisation: self
                .get("general.file_type")
                .and_then(GgufValue::as_u64)
                .map(quantisation_name),
            context_length,
            chat_template: text("tokenizer.chat_template"),
            is_projector,
            architecture,
        }
    }
}

/// Why a model file was refused. Each message names the file.
#[derive(Debug, thiserror::Error)]
pub enum GgufError {
    #[error("cannot read {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("{} is not a GGUF model file (it does not start with GGUF)", path.display())]
    NotGguf { path: PathBuf },
    #[error(
        "{} is a GGUF version {version} file; Sift reads versions 2 and 3 (download the model again in a current GGUF conversion)",
        path.display()
    )]
    UnsupportedVersion { path: PathBuf, version: u32 },
    #[error(
        "{} is a big-endian GGUF file, made for IBM mainframes; Sift reads little-endian GGUF files, the usual kind",
        path.display()
    )]
    BigEndian { path: PathBuf },
    #[error("{} is damaged or incomplete: {reason}", path.display())]
    Corrupt { path: PathBuf, reason: String },
}

/// Why [`parse_gguf_header`] refused its input; [`GgufHeaderError::for_file`]
/// names the file for a [`GgufError`].
#[derive(Debug, thiserror::Error)]
pub enum GgufHeaderError {
    #[error(transparent)]
    Io(io::Error),
    #[error("it does not start with GGUF")]
    NotGguf,
    #[error("GGUF version {0} is not supported")]
    UnsupportedVersion(u32),
    #[error("big-endian GGUF is not supported")]
    BigEndian,
    #[error("{0}")]
    Corrupt(String),
}

impl GgufHeaderError {
    pub fn for_file(self, path: &Path) -> GgufError {
        let path = path.to_path_buf();
        match self {
            Self::Io(source) => GgufError::Io { path, source },
            Self::NotGguf => GgufError::NotGguf { path },
            Self::UnsupportedVersion(version) => GgufError::UnsupportedVersion { path, version },
            Self::BigEndian => GgufError::BigEndian { path },
            Self::Corrupt(reason) => GgufError::Corrupt { path, reason },
        }
    }
}

/// Reads the header of the GGUF file at `path`: only the first bytes of
/// the file, through a buffer, never the weights.
pub fn read_gguf_info(path: &Path) -> Result<GgufInfo, GgufError> {
    let io_error = |source| GgufError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = File::open(path).map_err(io_error)?;
    let file_size = file.metadata().map_err(io_error)?.len();
    let header = parse_gguf_header(BufReader::new(file)).map_err(|e| e.for_file(path))?;
    Ok(header.info(file_size))
}

/// Parses the header at the start of `reader`, stopping before the tensor
/// infos. Memory use is bounded by the bytes actually read (strings are
/// kept, arrays are skipped), never by the lengths the header claims.
pub fn parse_gguf_header(mut reader: impl Read) -> Result<GgufHeader, GgufHeaderError> {
    let r = &mut reader;
    let mut magic = [0; 4];
    match read_exact(r, &mut magic) {
        Ok(()) if magic == GGUF_MAGIC => {}
        Ok(()) | Err(Fault::Eof) => return Err(GgufHeaderError::NotGguf),
        Err(fault) => return Err(fault.into_error(String::new)),
    }
    let fixed = |fault: Fault| match fault {
        Fault::Eof => GgufHeaderError::Corrupt("the file ends inside its header".to_owned()),
        other => other.into_error(String::new),
    };
    let version = read_u32(r).map_err(fixed)?;
    match version {
        2 | 3 => {}
        _ if matches!(version.swap_bytes(), 2 | 3) => return Err(GgufHeaderError::BigEndian),
        _ => return Err(GgufHeaderError::UnsupportedVersion(version)),
    }
    let tensor_count = read_u64(r).map_err(fixed)?;
    let count = read_u64(r).map_err(fixed)?;
    if count > MAX_METADATA_ENTRIES {
        return Err(GgufHeaderError::Corrupt(format!(
            "the header claims {count} metadata entries, more than the limit of {MAX_METADATA_ENTRIES}"
        )));
    }

    // Not `with_capacity(count)`: the count is the file's claim, not yet
    // backed by bytes.
    let mut metadata = Vec::new();
    let mut seen = HashSet::new();
    for index in 0..count {
        let key = read_key(r, index)?;
        if !seen.insert(key.clone()) {
            // llama.cpp refuses such a file, so it is refused here too,
            // rather than shown as a model that then fails to load.
            return Err(GgufHeaderError::Corrupt(format!(
                "metadata key {index} ({key}) appears twice"
            )));
        }
        let value = read_typed_value(r).map_err(|fault| {
            fault.into_error(|| format!("the value of metadata key {index} ({key})"))
        })?;
        metadata.push((key, value));
    }
    Ok(GgufHeader {
        version,
        tensor_count,
        metadata,
    })
}

/// The llama.cpp name of a `general.file_type` number (`LLAMA_FTYPE_*`,
/// without the prefix).
fn quantisation_name(file_type: u64) -> String {
    let name = match file_type {
        0 => "F32",
        1 => "F16",
        2 => "Q4_0",
        3 => "Q4_1",
        7 => "Q8_0",
        8 => "Q5_0",
        9 => "Q5_1",
        10 => "Q2_K",
        11 => "Q3_K_S",
        12 => "Q3_K_M",
        13 => "Q3_K_L",
        14 => "Q4_K_S",
        15 => "Q4_K_M",
        16 => "Q5_K_S",
        17 => "Q5_K_M",
        18 => "Q6_K",
        19 => "IQ2_XXS",
        20 => "IQ2_XS",
        21 => "Q2_K_S",
        22 => "IQ3_XS",
        23 => "IQ3_XXS",
        24 => "IQ1_S",
        25 => "IQ4_NL",
        26 => "IQ3_S",
        27 => "IQ3_M",
        28 => "IQ2_S",
        29 => "IQ2_M",
        30 => "IQ4_XS",
        31 => "IQ1_M",
        32 => "BF16",
        36 => "TQ1_0",
        37 => "TQ2_0",
        other => return format!("type {other}"),
    };
    name.to_owned()
}

/// A failed read below the level of one metadata entry; the entry adds
/// where it happened.
#[derive(Debug)]
enum Fault {
    /// The input ended early.
    Eof,
    Io(io::Error),
    /// A bad value, described without saying where.
    Bad(String),
}

impl Fault {
    /// `place` says where, as in "the value of metadata key 3 (general.name)".
    fn into_error(self, place: impl FnOnce() -> String) -> GgufHeaderError {
        match self {
            Self::Eof => GgufHeaderError::Corrupt(format!("the header ends inside {}", place())),
            Self::Io(error) => GgufHeaderError::Io(error),
            Self::Bad(what) => GgufHeaderError::Corrupt(format!("in {}, {what}", place())),
        }
    }
}

impl From<io::Error> for Fault {
    fn from(error: io::Error) -> Self {
        if error.kind() == io::ErrorKind::UnexpectedEof {
            Self::Eof
        } else {
            Self::Io(error)
        }
    }
}

fn read_exact(r: &mut impl Read, buf: &mut [u8]) -> Result<(), Fault> {
    Ok(r.read_exact(buf)?)
}

fn read_array<const N: usize>(r: &mut impl Read) -> Result<[u8; N], Fault> {
    let mut buf = [0; N];
    read_exact(r, &mut buf)?;
    Ok(buf)
}

fn read_u32(r: &mut impl Read) -> Result<u32, Fault> {
    read_array(r).map(u32::from_le_bytes)
}

fn read_u64(r: &mut impl Read) -> Result<u64, Fault> {
    read_array(r).map(u64::from_le_bytes)
}

/// Reads exactly `len` bytes, growing the buffer only as bytes arrive: a
/// length near `u64::MAX` in a short file ends at the end of the file, not
/// in an allocation failure.
fn read_bytes(r: &mut impl Read, len: u64) -> Result<Vec<u8>, Fault> {
    let mut bytes = Vec::new();
    let got = r.take(len).read_to_end(&mut bytes)?;
    if (got as u64) < len {
        return Err(Fault::Eof);
    }
    Ok(bytes)
}

/// Discards exactly `len` bytes.
fn skip_bytes(r: &mut impl Read, len: u64) -> Result<(), Fault> {
    let skipped = io::copy(&mut r.take(len), &mut io::sink())?;
    if skipped < len {
        return Err(Fault::Eof);
    }
    Ok(())
}

fn read_key(r: &mut impl Read, index: u64) -> Result<String, GgufHeaderError> {
    let place = || format!("metadata key {index}");
    let len = read_u64(r).map_err(|f| f.into_error(place))?;
    if len > MAX_KEY_BYTES {
        return Err(GgufHeaderError::Corrupt(format!(
            "metadata key {index} has a name of {len} bytes, longer than the 64 KiB limit"
        )));
    }
    let bytes = read_bytes(r, len).map_err(|f| f.into_error(place))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// The length of a string value, checked against [`MAX_STRING_BYTES`].
fn read_string_len(r: &mut impl Read) -> Result<u64, Fault> {
    let len = read_u64(r)?;
    if len > MAX_STRING_BYTES {
        return Err(Fault::Bad(format!(
            "a string of {len} bytes is longer than the 1 MiB limit"
        )));
    }
    Ok(len)
}

/// A value type followed by a value of that type.
fn read_typed_value(r: &mut impl Read) -> Result<GgufValue, Fault> {
    let value_type = read_u32(r)?;
    read_value(r, value_type)
}

fn read_value(r: &mut impl Read, value_type: u32) -> Result<GgufValue, Fault> {
    Ok(match value_type {
        0 => GgufValue::U8(u8::from_le_bytes(read_array(r)?)),
        1 => GgufValue::I8(i8::from_le_bytes(read_array(r)?)),
        2 => GgufValue::U16(u16::from_le_bytes(read_array(r)?)),
        3 => GgufValue::I16(i16::from_le_bytes(read_array(r)?)),
        4 => GgufValue::U32(u32::from_le_bytes(read_array(r)?)),
        5 => GgufValue::I32(i32::from_le_bytes(read_array(r)?)),
        6 => GgufValue::F32(f32::from_le_bytes(read_array(r)?)),
        // Any non-zero byte is true, as llama.cpp reads it.
        7 => GgufValue::Bool(read_array::<1>(r)?[0] != 0),
        8 => {
            let len = read_string_len(r)?;
            GgufValue::String(String::from_utf8_lossy(&read_bytes(r, len)?).into_owned())
        }
        9 => {
            let element_type = read_u32(r)?;
            let len = read_u64(r)?;
            skip_elements(r, element_type, len, 1)?;
            GgufValue::Array { element_type, len }
        }
        10 => GgufValue::U64(u64::from_le_bytes(read_array(r)?)),
        11 => GgufValue::I64(i64::from_le_bytes(read_array(r)?)),
        12 => GgufValue::F64(f64::from_le_bytes(read_array(r)?)),
        other => return Err(Fault::Bad(unknown_type("value", other))),
    })
}

/// `what` is "value" or "array element".
fn unknown_type(what: &str, value_type: u32) -> String {
    format!("the {what} type {value_type} is not a GGUF type (those are 0 to 12)")
}

/// The size of one element of a fixed-size type.
fn fixed_size(value_type: u32) -> Option<u64> {
    match value_type {
        0 | 1 | 7 => Some(1),
        2 | 3 => Some(2),
        4..=6 => Some(4),
        10..=12 => Some(8),
        _ => None,
    }
}

/// Reads and discards `len` elements of an array at nesting `depth` (1 for
/// an array that is a metadata value). Fixed-size elements go in one skip;
/// strings and inner arrays one at a time, each length checked, so the
/// loop ends at the end of the input however large `len` claims to be
/// (every element takes at least 8 bytes).
fn skip_elements(r: &mut impl Read, element_type: u32, len: u64, depth: u32) -> Result<(), Fault> {
    if let Some(size) = fixed_size(element_type) {
        let Some(total) = len.checked_mul(size) else {
            return Err(Fault::Bad(format!(
                "an array of {len} elements of {size} bytes is larger than any file"
            )));
        };
        return skip_bytes(r, total);
    }
    match element_type {
        8 => {
            for _ in 0..len {
                let string_len = read_string_len(r)?;
                skip_bytes(r, string_len)?;
            }
            Ok(())
        }
        9 => {
            if depth >= MAX_ARRAY_DEPTH {
                return Err(Fault::Bad(format!(
                    "arrays are nested more than {MAX_ARRAY_DEPTH} deep"
                )));
            }
            for _ in 0..len {
                let inner_type = read_u32(r)?;
                let inner_len = read_u64(r)?;
                skip_elements(r, inner_type, inner_len, depth + 1)?;
            }
            Ok(())
        }
        other => Err(Fault::Bad(unknown_type("array element", other))),
    }
}
