//! Reading files into [`Documents`], enforcing the limits.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::{DocumentError, docx, imaging, pdf, text, xlsx};

/// The bounds a read stays within. [`Limits::default`] is the specification's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Largest file, in bytes: 50 MB (50,000,000 bytes).
    pub max_file_bytes: u64,
    /// Most characters of text in all files together: 1,000,000.
    pub max_chars: usize,
    /// Most images in all files together: 50.
    pub max_images: usize,
    /// Most pages read from one PDF: 2,000.
    pub max_pdf_pages: usize,
    /// Longest time spent reading one PDF: 120 s (checked between pages).
    pub max_pdf_time: Duration,
    /// Largest uncompressed size of one zip entry (Word, Excel): 256 MiB.
    pub max_zip_entry_bytes: u64,
    /// Largest uncompressed size of all zip entries together: 512 MiB.
    pub max_zip_total_bytes: u64,
    /// Largest image, in pixels (width × height): 100 megapixels.
    pub max_image_pixels: u64,
    /// Longest edge of an image given to a model: 1568 px.
    pub max_image_edge: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_file_bytes: 50_000_000,
            max_chars: 1_000_000,
            max_images: 50,
            max_pdf_pages: 2_000,
            max_pdf_time: Duration::from_secs(120),
            max_zip_entry_bytes: 256 << 20,
            max_zip_total_bytes: 512 << 20,
            max_image_pixels: 100_000_000,
            max_image_edge: 1568,
        }
    }
}

/// How to read.
#[derive(Debug, Clone, Default)]
pub struct ReadOptions {
    /// The password for encrypted PDFs. Without one, an encrypted PDF is
    /// refused (one with an empty user password opens without it).
    pub pdf_password: Option<String>,
    /// Sift's data directory, where `lib/libpdfium.so` is looked for;
    /// [`default_data_dir`] when `None`.
    pub data_dir: Option<PathBuf>,
    /// An explicit PDFium library, looked at first (before `SIFT_PDFIUM`).
    pub pdfium_library: Option<PathBuf>,
    pub limits: Limits,
}

/// `SIFT_DATA_DIR`, else the platform's data directory plus `sift`
/// (`~/.local/share/sift` on Linux): the same directory as the engine's.
pub fn default_data_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("SIFT_DATA_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    dirs::data_dir()
        .unwrap_or_else(|| std::env::temp_dir().join("sift-data"))
        .join("sift")
}

/// The kind of a file, from its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Text,
    Word,
    Excel,
    Pdf,
    Image,
}

/// The kind a path's extension names, or `None` for a kind Sift does not read.
pub fn kind_of(path: &Path) -> Option<Kind> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    Some(match ext.as_str() {
        "txt" | "md" | "csv" | "tsv" | "json" | "jsonl" | "yaml" | "yml" | "xml" | "html"
        | "htm" | "log" => Kind::Text,
        "docx" => Kind::Word,
        "xlsx" | "xlsm" => Kind::Excel,
        "pdf" => Kind::Pdf,
        "png" | "jpg" | "jpeg" | "gif" | "webp" => Kind::Image,
        _ => return None,
    })
}

/// An image as the model receives it.
#[derive(Clone, PartialEq, Eq)]
pub struct DocImage {
    /// What the image is: the file name (`receipt.png`), or the file name
    /// and page for a rendered page (`scan.pdf page 2`).
    pub name: String,
    /// `image/jpeg` or `image/png` (or the original's type when it was
    /// already compact and needed no change).
    pub mime: String,
    pub width: u32,
    pub height: u32,
    /// The encoded bytes.
    pub data: Vec<u8>,
}

impl std::fmt::Debug for DocImage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DocImage")
            .field("name", &self.name)
            .field("mime", &self.mime)
            .field("width", &self.width)
            .field("height", &self.height)
            .field("bytes", &self.data.len())
            .finish()
    }
}

/// One page of a PDF.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    /// From 1.
    pub number: usize,
    /// The page's text (for a rendered page, its invisible text, if any).
    pub text: String,
    /// The rendered page, for a page without visible text of its own.
    pub image: Option<DocImage>,
}

/// What a file holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Content {
    /// Text, Word and Excel files.
    Text(String),
    /// A PDF.
    Pages(Vec<Page>),
    /// An image file.
    Image(DocImage),
}

impl Content {
    /// Characters of the file's own text (not counting markers).
    pub fn chars(&self) -> usize {
        match self {
            Self::Text(text) => text.chars().count(),
            Self::Pages(pages) => pages.iter().map(|p| p.text.chars().count()).sum(),
            Self::Image(_) => 0,
        }
    }

    /// The file's images, in order.
    pub fn images(&self) -> Vec<&DocImage> {
        match self {
            Self::Text(_) => Vec::new(),
            Self::Pages(pages) => pages.iter().filter_map(|p| p.image.as_ref()).collect(),
            Self::Image(image) => vec![image],
        }
    }
}

/// One file, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Document {
    pub path: PathBuf,
    /// The file name without its directory.
    pub name: String,
    pub kind: Kind,
    pub content: Content,
}

/// The files, read in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Documents {
    pub files: Vec<Document>,
}

impl Documents {
    /// All images in the order the model receives them (image 1 first).
    pub fn images(&self) -> Vec<&DocImage> {
        self.files.iter().flat_map(|d| d.content.images()).collect()
    }

    /// Characters of text in all files.
    pub fn chars(&self) -> usize {
        self.files.iter().map(|d| d.content.chars()).sum()
    }
}

/// What is left of the totals while reading.
#[derive(Debug)]
pub(crate) struct Budget {
    pub chars_left: usize,
    pub images_left: usize,
    pub max_chars: usize,
    pub max_images: usize,
}

impl Budget {
    pub fn take_chars(&mut self, path: &Path, text: &str) -> Result<(), DocumentError> {
        // Counting stops as soon as the limit is passed.
        let count = text.chars().take(self.chars_left + 1).count();
        if count > self.chars_left {
            return Err(DocumentError::TooMuchText {
                path: path.to_path_buf(),
                limit: self.max_chars,
            });
        }
        self.chars_left -= count;
        Ok(())
    }

    pub fn take_image(&mut self, path: &Path) -> Result<(), DocumentError> {
        if self.images_left == 0 {
            return Err(DocumentError::TooManyImages {
                path: path.to_path_buf(),
                limit: self.max_images,
            });
        }
        self.images_left -= 1;
        Ok(())
    }
}

impl Budget {
    pub fn new(limits: &Limits) -> Self {
        Self {
            chars_left: limits.max_chars,
            images_left: limits.max_images,
            max_chars: limits.max_chars,
            max_images: limits.max_images,
        }
    }

    /// Charges a file's text and images, in the order a reader meets them.
    fn charge(&mut self, document: &Document) -> Result<(), DocumentError> {
        let path = &document.path;
        match &document.content {
            Content::Text(text) => self.take_chars(path, text),
            Content::Pages(pages) => {
                for page in pages {
                    self.take_chars(path, &page.text)?;
                    if page.image.is_some() {
                        self.take_image(path)?;
                    }
                }
                Ok(())
            }
            Content::Image(_) => self.take_image(path),
        }
    }
}

/// Reads each file once, and gives them in the order named. Refuses the
/// whole set at the first file (in that order) that cannot be given to a
/// model, with a message naming that file.
///
/// Files are read in parallel (one thread a core, at most 4); each is
/// bounded by the limits on its own while read, and the totals are then
/// charged in order, so the outcome is the same as reading one by one.
pub fn read_documents(
    paths: &[PathBuf],
    options: &ReadOptions,
) -> Result<Documents, DocumentError> {
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(paths.len())
        .min(4);
    let results: Vec<Result<Document, DocumentError>> = if workers <= 1 {
        let mut results = Vec::with_capacity(paths.len());
        for path in paths {
            let result = read_one(path, options, &mut Budget::new(&options.limits));
            let failed = result.is_err();
            results.push(result);
            if failed {
                break;
            }
        }
        results
    } else {
        read_parallel(paths, options, workers)
    };
    let mut budget = Budget::new(&options.limits);
    let mut files = Vec::with_capacity(paths.len());
    for result in results {
        let document = result?;
        budget.charge(&document)?;
        files.push(document);
    }
    Ok(Documents { files })
}

fn read_parallel(
    paths: &[PathBuf],
    options: &ReadOptions,
    workers: usize,
) -> Vec<Result<Document, DocumentError>> {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let next = AtomicUsize::new(0);
    // Files after the first refused one need not be read.
    let first_error = AtomicUsize::new(usize::MAX);
    let slots: Vec<Mutex<Option<Result<Document, DocumentError>>>> =
        paths.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, Ordering::SeqCst);
                    if index >= paths.len() || index > first_error.load(Ordering::SeqCst) {
                        break;
                    }
                    let result =
                        read_one(&paths[index], options, &mut Budget::new(&options.limits));
                    if result.is_err() {
                        first_error.fetch_min(index, Ordering::SeqCst);
                    }
                    if let Ok(mut slot) = slots[index].lock() {
                        *slot = Some(result);
                    }
                }
            });
        }
    });
    slots
        .into_iter()
        .map_while(|slot| slot.into_inner().ok().flatten())
        .collect()
}

fn read_one(
    path: &Path,
    options: &ReadOptions,
    budget: &mut Budget,
) -> Result<Document, DocumentError> {
    let limits = &options.limits;
    // The kind is checked before the file is opened: a kind Sift does not
    // read is refused without reading it.
    kind_or_refusal(path)?;
    let meta = std::fs::metadata(path).map_err(|source| match source.kind() {
        std::io::ErrorKind::NotFound => DocumentError::NotFound {
            path: path.to_path_buf(),
        },
        _ => DocumentError::Io {
            path: path.to_path_buf(),
            source,
        },
    })?;
    if meta.is_dir() {
        return Err(DocumentError::IsDirectory {
            path: path.to_path_buf(),
        });
    }
    if meta.len() > limits.max_file_bytes {
        return Err(DocumentError::TooLarge {
            path: path.to_path_buf(),
            bytes: meta.len(),
            limit: limits.max_file_bytes,
        });
    }
    let bytes = read_bounded(path, limits.max_file_bytes)?;
    read_content(path, bytes, options, budget)
}

fn kind_or_refusal(path: &Path) -> Result<Kind, DocumentError> {
    kind_of(path).ok_or_else(|| DocumentError::Unsupported {
        path: path.to_path_buf(),
        kind: match path.extension() {
            Some(ext) => format!(".{}", ext.to_string_lossy()),
            None => "no extension".to_string(),
        },
    })
}

/// Reads one file that is already in memory (an attachment, say): `path`
/// gives its name and kind (from the extension) and names it in refusals.
/// The per-file limits apply; the totals are those of this file alone.
pub fn read_bytes(
    path: &Path,
    bytes: Vec<u8>,
    options: &ReadOptions,
) -> Result<Document, DocumentError> {
    kind_or_refusal(path)?;
    let limits = &options.limits;
    if bytes.len() as u64 > limits.max_file_bytes {
        return Err(DocumentError::TooLarge {
            path: path.to_path_buf(),
            bytes: bytes.len() as u64,
            limit: limits.max_file_bytes,
        });
    }
    read_content(path, bytes, options, &mut Budget::new(limits))
}

fn read_content(
    path: &Path,
    bytes: Vec<u8>,
    options: &ReadOptions,
    budget: &mut Budget,
) -> Result<Document, DocumentError> {
    let limits = &options.limits;
    let kind = kind_or_refusal(path)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string());
    let content = match kind {
        Kind::Text => Content::Text(text::decode(path, &bytes)?),
        Kind::Word => Content::Text(docx::read(path, &bytes, limits)?),
        Kind::Excel => Content::Text(xlsx::read(path, &bytes, limits)?),
        Kind::Pdf => Content::Pages(pdf::read(path, &name, &bytes, options, budget)?),
        Kind::Image => {
            budget.take_image(path)?;
            Content::Image(imaging::read(path, &name, bytes, limits)?)
        }
    };
    if let Content::Text(text) = &content {
        budget.take_chars(path, text)?;
    }
    Ok(Document {
        path: path.to_path_buf(),
        name,
        kind,
        content,
    })
}

/// Reads a file, refusing it when it grows past the limit while read.
fn read_bounded(path: &Path, max: u64) -> Result<Vec<u8>, DocumentError> {
    use std::io::Read;
    let io = |source| DocumentError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let mut bytes = Vec::new();
    file.take(max + 1).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > max {
        return Err(DocumentError::TooLarge {
            path: path.to_path_buf(),
            bytes: bytes.len() as u64,
            limit: max,
        });
    }
    Ok(bytes)
}
