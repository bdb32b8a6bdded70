-- OCR of scanned pages: a page read by Tesseract keeps its mean word confidence (NULL for a
-- page with a text layer), and the box of every recognised word, so that a quote on a scan can
-- be shown at its place. Word offsets are byte offsets into the page's stored text.
ALTER TABLE pages ADD COLUMN ocr_confidence REAL;

CREATE TABLE ocr_words (
    profile_id   TEXT NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    document_id  TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    page         INTEGER NOT NULL,
    seq          INTEGER NOT NULL,
    char_start   INTEGER NOT NULL,
    char_end     INTEGER NOT NULL,
    x            REAL NOT NULL,
    y            REAL NOT NULL,
    w            REAL NOT NULL,
    h            REAL NOT NULL,
    confidence   REAL NOT NULL,
    PRIMARY KEY (document_id, page, seq)
);
