#!/usr/bin/env python3
"""Writes the bad-input suite's hostile files into a folder, at test time.

    python3 tests/badinputs/generate.py DIR

Nothing large is committed: each file is built here from a few lines
(Python's standard library only: zipfile, struct, zlib), most of them a few
kilobytes that would expand to gigabytes, or take minutes, in a careless
reader. The shapes follow crates/documents/tests/documents/hostile.rs and
limits.rs, where each reader's own regression test lives.

Besides the files, DIR/cases.tsv lists one case a line:

    NAME <TAB> HOW <TAB> TARGET <TAB> WHAT IT IS

HOW is `doc` (run through `sift read` and `sift extract --answers
located`) or `gguf` (run through `sift models add`, the one command that
reads a model file's header); TARGET is the path (or, for the glob case,
the pattern) given to the command.
"""

import os
import struct
import sys
import zlib
import zipfile

CASES = []


def case(name, how, target, what):
    CASES.append((name, how, target, what))


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


# --- PDF ------------------------------------------------------------------


def pdf(objects, root=1):
    """A PDF of these objects (bytes, numbered from 1) with a correct
    cross-reference table."""
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for n, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % n + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        root,
        xref,
    )
    return bytes(out)


def stream(dictionary, data):
    return b"<< %s /Length %d >>\nstream\n" % (dictionary, len(data)) + data + b"\nendstream"


def pdf_pages(count):
    """`count` pages of one line of text each, sharing one content stream."""
    kids = b" ".join(b"%d 0 R" % (5 + i) for i in range(count))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, count),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        stream(b"", b"BT /F1 12 Tf 20 60 Td (Quarterly report, one of its many pages) Tj ET"),
    ]
    for _ in range(count):
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 100] "
            b"/Resources << /Font << /F1 3 0 R >> >> /Contents 4 0 R >>"
        )
    return pdf(objects)


def pdf_self_drawing_form():
    """A page that draws form XObject 4, whose content draws itself: a
    reader that follows it recurses without end (PDFium threw a C++
    exception that aborted the process)."""
    return pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] "
            b"/Resources << /XObject << /X 4 0 R >> >> /Contents 5 0 R >>",
            stream(
                b"/Type /XObject /Subtype /Form /BBox [0 0 200 200] "
                b"/Resources << /XObject << /X 4 0 R >> >>",
                b"0 0 m 200 200 l S /X Do",
            ),
            stream(b"", b"/X Do"),
        ]
    )


def pdf_mutually_drawing_forms():
    """Two forms that draw each other, with a text operator in each."""
    return pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] "
            b"/Resources << /XObject << /A 4 0 R >> /Font << /F1 6 0 R >> >> /Contents 7 0 R >>",
            stream(
                b"/Type /XObject /Subtype /Form /BBox [0 0 200 200] "
                b"/Resources << /XObject << /B 5 0 R >> /Font << /F1 6 0 R >> >>",
                b"BT /F1 9 Tf 10 10 Td (a) Tj ET /B Do",
            ),
            stream(
                b"/Type /XObject /Subtype /Form /BBox [0 0 200 200] "
                b"/Resources << /XObject << /A 4 0 R >> /Font << /F1 6 0 R >> >>",
                b"BT /F1 9 Tf 10 20 Td (b) Tj ET /A Do",
            ),
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
            stream(b"", b"/A Do"),
        ]
    )


def pdf_deep_array(depth):
    """An object nested `depth` arrays deep, reachable from the catalog."""
    deep = b"[" * depth + b"1" + b"]" * depth
    return pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R /Deep 4 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>",
            deep,
        ]
    )


def pdf_deep_dictionary(depth):
    """A page whose resources are dictionaries nested `depth` deep."""
    deep = b"<< /A " * depth + b"1" + b" >>" * depth
    return pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Resources " + deep + b" >>",
        ]
    )


def pdf_deep_page_tree(depth):
    """A page tree `depth` levels deep with one page at the bottom."""
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>"]
    for level in range(depth):
        n = 2 + level
        parent = b" /Parent %d 0 R" % (n - 1) if level else b""
        objects.append(b"<< /Type /Pages /Kids [%d 0 R] /Count 1%s >>" % (n + 1, parent))
    objects.append(b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 200 200] >>" % (depth + 1))
    return pdf(objects)


def pdf_page_tree_loop():
    """A page tree whose node names itself as its own kid."""
    return pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 1000000 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>",
        ]
    )


def pdf_many_xml_attachments(count, xml_bytes):
    """`count` attachments aN.xml naming one `xml_bytes` stream, and
    factur-x.xml last: holding each before choosing took 4 GB."""
    names = b" ".join(b"(a%d.xml) 5 0 R" % n for n in range(count)) + b" (factur-x.xml) 6 0 R"
    body = b"<x>" + b"y" * (xml_bytes - 7) + b"</x>"
    return pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R /Names << /EmbeddedFiles << /Names [%s] >> >> >>" % names,
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>",
            b"null",
            b"<< /Type /Filespec /F (a.xml) /UF (a.xml) /EF << /F 7 0 R >> >>",
            b"<< /Type /Filespec /F (factur-x.xml) /UF (factur-x.xml) /EF << /F 8 0 R >> >>",
            stream(b"/Type /EmbeddedFile", body),
            stream(b"/Type /EmbeddedFile", b"<Invoice/>   "),
        ]
    )


def pdf_flate_bomb_attachment(expanded):
    """factur-x.xml as a Flate stream that expands to `expanded` bytes."""
    packed = deflate_repeated(b"<", expanded)
    return pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R /Names << /EmbeddedFiles << /Names [(factur-x.xml) 4 0 R] >> >> >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>",
            b"<< /Type /Filespec /F (factur-x.xml) /UF (factur-x.xml) /EF << /F 5 0 R >> >>",
            stream(b"/Type /EmbeddedFile /Filter /FlateDecode", packed),
        ]
    )


def pdf_flate_bomb_content(expanded):
    """A page whose content stream expands to `expanded` bytes of spaces."""
    packed = deflate_repeated(b" ", expanded)
    return pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R >>",
            stream(b"/Filter /FlateDecode", packed),
        ]
    )


def deflate_repeated(byte, total, chunk=1 << 20):
    """zlib data that expands to `total` copies of `byte`."""
    packer = zlib.compressobj(9)
    block = byte * chunk
    out = []
    left = total
    while left:
        n = min(left, chunk)
        out.append(packer.compress(block if n == chunk else byte * n))
        left -= n
    out.append(packer.flush())
    return b"".join(out)


# --- Zip containers (Word, Excel) -------------------------------------------

CONTENT_TYPES_DOCX = (
    '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>'
)
W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


def docx_document(body):
    return (
        f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document {W}><w:body>{body}</w:body></w:document>'
    )


def write_zip(path, entries):
    """A zip of (name, bytes or a function writing into the open entry)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for name, content in entries:
            if callable(content):
                with z.open(name, "w", force_zip64=True) as entry:
                    content(entry)
            else:
                z.writestr(name, content)


def repeated_into(prefix, byte, total, suffix, chunk=1 << 20):
    """A writer of prefix, `total` copies of `byte` (any bytes), suffix."""

    def fill(entry):
        entry.write(prefix)
        block = byte * chunk
        left = total
        while left:
            n = min(left, chunk)
            entry.write(block if n == chunk else byte * n)
            left -= n
        entry.write(suffix)

    return fill


def write_docx(path, body):
    write_zip(path, [("[Content_Types].xml", CONTENT_TYPES_DOCX), ("word/document.xml", docx_document(body))])


def zip_entry_lying_about_its_size(name, data, claimed):
    """One deflated zip entry whose headers claim `claimed` bytes
    uncompressed while the data expands to len(data): a reader that sizes
    by the header and reads to the end of the stream is bombed."""
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    packed = packer.compress(data) + packer.flush()
    crc = zlib.crc32(data)
    name_bytes = name.encode()
    local = struct.pack(
        "<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, 0, crc, len(packed), claimed, len(name_bytes), 0
    )
    return name_bytes, local, packed, crc


def write_lying_docx(path, expanded):
    """A DOCX whose document.xml claims 2,000 bytes and expands to
    `expanded`."""
    document = docx_document("<w:p><w:r><w:t>" + "x" * expanded + "</w:t></w:r></w:p>").encode()
    entries = [
        ("[Content_Types].xml", CONTENT_TYPES_DOCX.encode(), None),
        ("word/document.xml", document, 2_000),
    ]
    out = bytearray()
    central = bytearray()
    for name, data, claimed in entries:
        name_bytes, local, packed, crc = zip_entry_lying_about_its_size(
            name, data, claimed if claimed is not None else len(data)
        )
        offset = len(out)
        out += local + name_bytes + packed
        size = claimed if claimed is not None else len(data)
        central += struct.pack(
            "<IHHHHHHIIIHHHHHII",
            0x02014B50, 20, 20, 0, 8, 0, 0, crc, len(packed), size,
            len(name_bytes), 0, 0, 0, 0, 0, offset,
        ) + name_bytes
    start = len(out)
    out += central
    out += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(entries), len(entries), len(central), start, 0)
    write(path, out)


XLSX_NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'
REL_NS = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"'
PKG_RELS = "http://schemas.openxmlformats.org/package/2006/relationships"
SHEET_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet"
STYLES_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles"


def xlsx_entries(sheets, num_fmts=(), cell_xfs=(0,), sheet_targets=None):
    """A workbook's parts: sheets are (name, sheetData XML or a writer,
    extra XML after sheetData); `sheet_targets`, when given, points each
    sheet at that part instead of its own."""
    entries = []
    overrides = []
    workbook_sheets = []
    rels = []
    for n, (name, data, extra) in enumerate(sheets, start=1):
        target = sheet_targets[n - 1] if sheet_targets else f"worksheets/sheet{n}.xml"
        workbook_sheets.append(f'<sheet name="{name}" sheetId="{n}" r:id="rId{n}"/>')
        rels.append(f'<Relationship Id="rId{n}" Type="{SHEET_REL}" Target="{target}"/>')
        if sheet_targets and target in [t for t in sheet_targets[: n - 1]]:
            continue
        overrides.append(
            f'<Override PartName="/xl/{target}" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
        )
        head = f'<?xml version="1.0" encoding="UTF-8"?><worksheet {XLSX_NS}><sheetData>'
        tail = f"</sheetData>{extra}</worksheet>"
        if callable(data):
            entries.append((f"xl/{target}", data(head.encode(), tail.encode())))
        else:
            entries.append((f"xl/{target}", head + data + tail))
    n_styles = len(sheets) + 1
    rels.append(f'<Relationship Id="rId{n_styles}" Type="{STYLES_REL}" Target="styles.xml"/>')
    fmts = "".join(f'<numFmt numFmtId="{i}" formatCode="{code}"/>' for i, code in num_fmts)
    xfs = "".join(
        f'<xf numFmtId="{i}" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>' for i in cell_xfs
    )
    styles = (
        f'<?xml version="1.0" encoding="UTF-8"?><styleSheet {XLSX_NS}><numFmts count="{len(num_fmts)}">{fmts}</numFmts>'
        '<fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts>'
        '<fills count="1"><fill><patternFill patternType="none"/></fill></fills><borders count="1"><border/></borders>'
        '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>'
        f'<cellXfs count="{len(cell_xfs)}">{xfs}</cellXfs></styleSheet>'
    )
    content_types = (
        '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/>'
        '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
        '<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>'
        + "".join(overrides)
        + "</Types>"
    )
    workbook = (
        f'<?xml version="1.0" encoding="UTF-8"?><workbook {XLSX_NS} {REL_NS}><sheets>{"".join(workbook_sheets)}</sheets></workbook>'
    )
    workbook_rels = f'<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="{PKG_RELS}">{"".join(rels)}</Relationships>'
    root_rels = (
        f'<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="{PKG_RELS}">'
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>'
        "</Relationships>"
    )
    return [
        ("[Content_Types].xml", content_types),
        ("_rels/.rels", root_rels),
        ("xl/workbook.xml", workbook),
        ("xl/_rels/workbook.xml.rels", workbook_rels),
        ("xl/styles.xml", styles),
    ] + entries


# --- Images -----------------------------------------------------------------


def png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png_header(width, height, colour_type=2):
    return b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, colour_type, 0, 0, 0))


def png_flat(width, height, rgb=(255, 255, 255)):
    """A PNG of one colour, its rows deflated as they are made, so a
    100-megapixel image costs a few hundred kilobytes."""
    packer = zlib.compressobj(9)
    row = b"\x00" + bytes(rgb) * width
    data = [packer.compress(row) for _ in range(height)]
    data.append(packer.flush())
    return png_header(width, height) + png_chunk(b"IDAT", b"".join(data)) + png_chunk(b"IEND", b"")


def png_header_claiming(width, height):
    """A PNG header claiming these dimensions, with a few bytes of data."""
    return png_header(width, height) + png_chunk(b"IDAT", b"\x78\x9c\x03\x00\x00\x00\x00\x01")


def jpeg_grey(width, height):
    """A baseline greyscale JPEG, every 8×8 block flat: one-symbol Huffman
    tables (DC difference 0, then end of block), so its scan is all zero
    bits."""
    out = bytearray(b"\xff\xd8")
    out += b"\xff\xdb" + struct.pack(">HB", 67, 0) + bytes([1] * 64)
    out += b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, height, width, 1) + bytes([1, 0x11, 0])
    # DC table 0 and AC table 0: one code of length 1 ('0'), symbol 0.
    for table_class in (0x00, 0x10):
        counts = bytes([1] + [0] * 15)
        out += b"\xff\xc4" + struct.pack(">HB", 2 + 1 + 16 + 1, table_class) + counts + b"\x00"
    out += b"\xff\xda" + struct.pack(">HB", 8, 1) + bytes([1, 0x00, 0, 63, 0])
    blocks = ((width + 7) // 8) * ((height + 7) // 8)
    out += bytes((2 * blocks + 7) // 8)  # two zero bits a block
    out += b"\xff\xd9"
    return bytes(out)


def gif_header_claiming(width, height):
    """A GIF whose one frame claims 65535×65535 pixels."""
    out = b"GIF89a" + struct.pack("<HHBBB", width, height, 0x80, 0, 0) + b"\x00\x00\x00\xff\xff\xff"
    out += b"\x2c" + struct.pack("<HHHHB", 0, 0, width, height, 0)
    out += b"\x02\x02\x44\x01\x00\x3b"
    return out


# --- GGUF -------------------------------------------------------------------


def gguf_string(text):
    data = text.encode()
    return struct.pack("<Q", len(data)) + data


# --- The cases --------------------------------------------------------------


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: generate.py DIR")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)

    def at(name):
        return os.path.join(out, name)

    # Regressions that already hold.
    write(at("over-limit.png"), png_header_claiming(100_000, 100_000))
    case("over-limit.png", "doc", at("over-limit.png"), "a PNG header claiming 100000x100000 pixels")
    whole = jpeg_grey(2048, 1536)
    write(at("truncated.jpg"), whole[: len(whole) // 2])
    case("truncated.jpg", "doc", at("truncated.jpg"), "a 2048x1536 JPEG cut off inside its scan")
    laughs = "".join(
        f'<!ENTITY l{i} "{("&l%d;" % (i - 1)) * 10 if i else "lol"}">' for i in range(10)
    )
    document = (
        f'<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE w:document [{laughs}]>'
        f"<w:document {W}><w:body><w:p><w:r><w:t>&l9;</w:t></w:r></w:p></w:body></w:document>"
    )
    write_zip(at("entity.docx"), [("[Content_Types].xml", CONTENT_TYPES_DOCX), ("word/document.xml", document)])
    case("entity.docx", "doc", at("entity.docx"), "a DOCX whose DTD defines ten levels of ten entities (a billion laughs)")
    text = ("Rechnung Nr. 4711, Summe 12,50 EUR; Grüße aus Zürich.\n" * 16_000).encode("utf-16-le")
    write(at("utf16-no-bom.txt"), text)
    case("utf16-no-bom.txt", "doc", at("utf16-no-bom.txt"), f"{len(text)} bytes of UTF-16LE text without a byte order mark")
    write(at("pages-2001.pdf"), pdf_pages(2_001))
    case("pages-2001.pdf", "doc", at("pages-2001.pdf"), "a PDF of 2,001 pages, one past the limit")
    write(at("pages-2000.pdf"), pdf_pages(2_000))
    case("pages-2000.pdf", "doc", at("pages-2000.pdf"), "a PDF of 2,000 pages, at the limit")
    # GGUF headers whose counts are absurd: 2^64-1 tensors, 2^63 keys; an
    # array of 2^62 strings; a string 2^63 bytes long.
    write(at("counts.gguf"), b"GGUF" + struct.pack("<IQQ", 3, 2**64 - 1, 2**63))
    case("counts.gguf", "gguf", at("counts.gguf"), "a GGUF header of 2^64-1 tensors and 2^63 metadata keys")
    write(
        at("array.gguf"),
        b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + gguf_string("tokenizer.ggml.tokens")
        + struct.pack("<IIQ", 9, 8, 2**62) + gguf_string("<s>"),
    )
    case("array.gguf", "gguf", at("array.gguf"), "a GGUF array claiming 2^62 strings")
    write(
        at("string.gguf"),
        b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + gguf_string("general.name") + struct.pack("<IQ", 8, 2**63) + b"Smol",
    )
    case("string.gguf", "gguf", at("string.gguf"), "a GGUF string claiming 2^63 bytes")
    nested = b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + gguf_string("a")
    nested += struct.pack("<I", 9) + struct.pack("<IQ", 9, 1) * 100_000
    write(at("nested.gguf"), nested)
    case("nested.gguf", "gguf", at("nested.gguf"), "a GGUF array nested 100,000 arrays deep")

    # Word.
    cell = "x" * 10_000
    rows = (
        '<w:tr><w:tc><w:tcPr><w:gridSpan w:val="64"/><w:vMerge/></w:tcPr><w:p/></w:tc></w:tr>' * 10_000
    )
    write_docx(
        at("merged-cell.docx"),
        '<w:tbl><w:tr><w:tc><w:tcPr><w:gridSpan w:val="64"/><w:vMerge w:val="restart"/></w:tcPr>'
        f"<w:p><w:r><w:t>{cell}</w:t></w:r></w:p></w:tc></w:tr>{rows}</w:tbl>",
    )
    case("merged-cell.docx", "doc", at("merged-cell.docx"), "one 10,000-character cell spanning 64 columns, merged down 10,000 rows")
    expanded = 300 << 20
    write_zip(
        at("zip-bomb.docx"),
        [
            ("[Content_Types].xml", CONTENT_TYPES_DOCX),
            (
                "word/document.xml",
                repeated_into(
                    f'<?xml version="1.0" encoding="UTF-8"?><w:document {W}><w:body><w:p><w:r><w:t>'.encode(),
                    b"x",
                    expanded,
                    b"</w:t></w:r></w:p></w:body></w:document>",
                ),
            ),
        ],
    )
    case("zip-bomb.docx", "doc", at("zip-bomb.docx"), "a DOCX whose document.xml expands to 300 MiB")
    write_lying_docx(at("zip-bomb-lying.docx"), 200 << 20)
    case("zip-bomb-lying.docx", "doc", at("zip-bomb-lying.docx"), "a DOCX whose document.xml claims 2,000 bytes and expands to 200 MiB")
    write_zip(
        at("text-bomb.docx"),
        [
            ("[Content_Types].xml", CONTENT_TYPES_DOCX),
            (
                "word/document.xml",
                repeated_into(
                    f'<?xml version="1.0" encoding="UTF-8"?><w:document {W}><w:body>'.encode(),
                    b"<w:p><w:r><w:t>x</w:t></w:r></w:p>",
                    4_000_000,
                    b"</w:body></w:document>",
                    chunk=1 << 14,
                ),
            ),
        ],
    )
    case("text-bomb.docx", "doc", at("text-bomb.docx"), "a DOCX of 4,000,000 paragraphs (136 MB of XML), under the zip limits")

    # Excel.
    data = "".join(f'<row r="{i * 100 + 1}"><c r="A{i * 100 + 1}"><v>123456789012345</v></c></row>' for i in range(10_000))
    merges = "".join(f'<mergeCell ref="A{i * 100 + 1}:CV{i * 100 + 100}"/>' for i in range(10_000))
    write_zip(at("merge-fills.xlsx"), xlsx_entries([("S", data, f'<mergeCells count="10000">{merges}</mergeCells>')]))
    case("merge-fills.xlsx", "doc", at("merge-fills.xlsx"), "10,000 merged regions of 10,000 cells, each filled with a 15-digit number")
    write_zip(
        at("one-merge.xlsx"),
        xlsx_entries([("S", '<row r="1"><c r="A1"><v>1</v></c></row>', '<mergeCells count="1"><mergeCell ref="A1:XFD1048576"/></mergeCells>')]),
    )
    case("one-merge.xlsx", "doc", at("one-merge.xlsx"), "one merged region of the whole sheet (17 billion cells)")
    write_zip(
        at("zeros-format.xlsx"),
        xlsx_entries([("S", '<row r="1"><c r="A1" s="1"><v>7</v></c></row>', "")], [(164, "0" * 2_000_000)], (0, 164)),
    )
    case("zeros-format.xlsx", "doc", at("zeros-format.xlsx"), "a custom number format of 2,000,000 zeros")
    empty_rows = "".join(f'<row r="{r}"><c r="A{r}"/></row>' for r in range(1, 40_001))
    write_zip(
        at("shared-part.xlsx"),
        xlsx_entries([(f"S{n}", empty_rows, "") for n in range(1, 1001)], sheet_targets=["worksheets/sheet1.xml"] * 1000),
    )
    case("shared-part.xlsx", "doc", at("shared-part.xlsx"), "1,000 sheets all pointing at one 1 MB part")
    write_zip(
        at("zip-bomb.xlsx"),
        xlsx_entries(
            [
                (
                    "S",
                    lambda head, tail: repeated_into(head, b" ", 300 << 20, tail),
                    "",
                )
            ]
        ),
    )
    case("zip-bomb.xlsx", "doc", at("zip-bomb.xlsx"), "a sheet whose XML expands to 300 MiB")
    write_zip(
        at("many-cells.xlsx"),
        xlsx_entries(
            [
                (
                    "S",
                    lambda head, tail: repeated_into(head, b'<row><c t="inlineStr"><is><t>1</t></is></c></row>', 3_000_000, tail, chunk=1 << 12),
                    "",
                )
            ]
        ),
    )
    case("many-cells.xlsx", "doc", at("many-cells.xlsx"), "3,000,000 rows of one inline string (150 MB of XML)")

    # XML e-invoices, and PDFs carrying them.
    depth = 120_000
    xml = "<Invoice>" + "<a>" * depth + "x</a>" * depth + "<ID>INV-9</ID></Invoice>"
    write(at("deep.xml"), xml.encode())
    case("deep.xml", "doc", at("deep.xml"), "an e-invoice's XML nested 120,000 elements deep")
    write(at("attachments.pdf"), pdf_many_xml_attachments(1_000, 4_000_000))
    case("attachments.pdf", "doc", at("attachments.pdf"), "1,000 .xml attachments naming one 4 MB stream, factur-x.xml last")
    write(at("attachment-bomb.pdf"), pdf_flate_bomb_attachment(1 << 30))
    case("attachment-bomb.pdf", "doc", at("attachment-bomb.pdf"), "a factur-x.xml attachment whose Flate stream expands to 1 GiB")

    # Images.
    write(at("strip.png"), png_flat(2000, 1))
    case("strip.png", "doc", at("strip.png"), "a 2000x1 PNG (its short side scaled up for OCR)")
    write(at("column.png"), png_flat(1, 20000))
    case("column.png", "doc", at("column.png"), "a 1x20000 PNG")
    write(at("pixel-limit.png"), png_flat(10_000, 10_000))
    case("pixel-limit.png", "doc", at("pixel-limit.png"), "a 10000x10000 PNG, at the pixel limit (300 MB decoded, 300 KB on disk)")
    write(at("pixel-bomb.png"), png_flat(20_000, 20_000, (0, 0, 0)))
    case("pixel-bomb.png", "doc", at("pixel-bomb.png"), "a 20000x20000 PNG (1.2 GB decoded, 1.2 MB on disk)")
    write(at("frame.gif"), gif_header_claiming(65535, 65535))
    case("frame.gif", "doc", at("frame.gif"), "a GIF whose frame claims 65535x65535 pixels")

    # Text.
    line = "Total: " + " ".join(["12.50"] * 160_000) + "\n"
    write(at("long-line.txt"), line.encode())
    case("long-line.txt", "doc", at("long-line.txt"), "one line of the same amount 160,000 times (the value matcher)")
    write(at("chars-1000001.txt"), b"a" * 1_000_001)
    case("chars-1000001.txt", "doc", at("chars-1000001.txt"), "1,000,001 characters, one past the limit")

    # PDFs built to recurse or nest.
    write(at("self-drawing.pdf"), pdf_self_drawing_form())
    case("self-drawing.pdf", "doc", at("self-drawing.pdf"), "a form XObject that draws itself")
    write(at("mutual-forms.pdf"), pdf_mutually_drawing_forms())
    case("mutual-forms.pdf", "doc", at("mutual-forms.pdf"), "two form XObjects that draw each other")
    write(at("deep-array.pdf"), pdf_deep_array(100_000))
    case("deep-array.pdf", "doc", at("deep-array.pdf"), "an object nested 100,000 arrays deep")
    write(at("deep-dictionary.pdf"), pdf_deep_dictionary(100_000))
    case("deep-dictionary.pdf", "doc", at("deep-dictionary.pdf"), "page resources nested 100,000 dictionaries deep")
    write(at("deep-page-tree.pdf"), pdf_deep_page_tree(10_000))
    case("deep-page-tree.pdf", "doc", at("deep-page-tree.pdf"), "a page tree 10,000 levels deep")
    write(at("page-tree-loop.pdf"), pdf_page_tree_loop())
    case("page-tree-loop.pdf", "doc", at("page-tree-loop.pdf"), "a page tree node that is its own kid, claiming 1,000,000 pages")
    write(at("content-bomb.pdf"), pdf_flate_bomb_content(1 << 30))
    case("content-bomb.pdf", "doc", at("content-bomb.pdf"), "a page whose content stream expands to 1 GiB of spaces")

    # Not files to parse at all.
    with open(at("over-50mb.pdf"), "wb") as f:
        f.truncate(50_000_001)  # sparse: no disk space used
    case("over-50mb.pdf", "doc", at("over-50mb.pdf"), "a (sparse) file of 50,000,001 bytes")
    os.mkfifo(at("x.pdf"))
    case("x.pdf", "doc", at("x.pdf"), "a named pipe called x.pdf (opening it waits for a writer)")
    loop = at("loop")
    os.makedirs(loop, exist_ok=True)
    write(os.path.join(loop, "x.txt"), b"Total: 12.50\n")
    os.symlink(loop, os.path.join(loop, "a"))
    os.symlink(loop, os.path.join(loop, "b"))
    case("loop/**/*.txt", "doc", os.path.join(loop, "**", "*.txt"), "a ** glob over a folder with two links back to itself")

    with open(at("cases.tsv"), "w", encoding="utf-8") as f:
        for row in CASES:
            f.write("\t".join(row) + "\n")


if __name__ == "__main__":
    main()
