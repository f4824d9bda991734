#!/usr/bin/env python3
"""scripts/check-import-cycles.py against small crates whose circles are known.

    python3 tests/import-cycles/test_fixtures.py

Each fixture under `fixtures/` is a crate (`src/lib.rs`) checked with
`--root`; the test holds the checker's whole output and exit code, so a
circle it stops seeing, or one it starts inventing, fails here before it
fails (or silently passes) on the real tree.

- `locator-circle`: core's evidence folder as it was at 39ca0f0 (trimmed to
  its `mod` and `use` lines): `matching.rs` takes `home_currency_place`
  through `locator/mod.rs`'s re-export while `locator/propose.rs` and
  `dates.rs` take `Run` and `value_runs` from `matching.rs`. No two files
  form a circle, so only the rooms of `evidence/` show it.
- `inner-circle`: the same shape two folders down, through a `super::`
  re-export.
- `crate-reexport`: one of the circle's arrows is drawn only through the
  crate root's `pub use` (`use crate::Count`).
- `file-cycle`: two files importing each other, the file-level check.
- `clean`: facades, a root re-export and children using their parent, and
  no circle.
"""

import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKER = os.path.join(HERE, "..", "..", "scripts", "check-import-cycles.py")


def check(fixture):
    done = subprocess.run(
        [sys.executable, CHECKER, "--root", os.path.join(HERE, "fixtures", fixture)],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.returncode, done.stdout.splitlines()


class Fixtures(unittest.TestCase):
    maxDiff = None

    def test_locator_circle_from_todays_evidence_folder(self):
        self.assertEqual(
            check("locator-circle"),
            (
                1,
                [
                    "locator-circle (lib.rs): import circle between the rooms of evidence/: "
                    "evidence/locator/, evidence/matching.rs",
                    "    evidence/locator/ -> evidence/matching.rs: "
                    "src/evidence/locator/dates.rs -> src/evidence/matching.rs, "
                    "src/evidence/locator/propose.rs -> src/evidence/matching.rs",
                    "    evidence/matching.rs -> evidence/locator/: "
                    "src/evidence/matching.rs -> src/evidence/locator/mod.rs, "
                    "src/evidence/matching.rs -> src/evidence/locator/country.rs",
                    "1 import cycle(s) or circle(s) of rooms",
                ],
            ),
        )

    def test_inner_circle_two_folders_down(self):
        self.assertEqual(
            check("inner-circle"),
            (
                1,
                [
                    "inner-circle (lib.rs): import circle between the rooms of books/shop/: "
                    "books/shop/stock/, books/shop/till.rs",
                    "    books/shop/stock/ -> books/shop/till.rs: "
                    "src/books/shop/stock/ledger.rs -> src/books/shop/till.rs",
                    "    books/shop/till.rs -> books/shop/stock/: "
                    "src/books/shop/till.rs -> src/books/shop/stock/mod.rs, "
                    "src/books/shop/till.rs -> src/books/shop/stock/count.rs",
                    "1 import cycle(s) or circle(s) of rooms",
                ],
            ),
        )

    def test_arrow_through_the_crate_roots_reexport(self):
        self.assertEqual(
            check("crate-reexport"),
            (
                1,
                [
                    "crate-reexport (lib.rs): import circle between the rooms of shop/: "
                    "shop/stock/, shop/till.rs",
                    "    shop/stock/ -> shop/till.rs: src/shop/stock/ledger.rs -> src/shop/till.rs",
                    "    shop/till.rs -> shop/stock/: src/shop/till.rs -> src/shop/stock/count.rs",
                    "1 import cycle(s) or circle(s) of rooms",
                ],
            ),
        )

    def test_two_files_importing_each_other(self):
        self.assertEqual(
            check("file-cycle"),
            (
                1,
                [
                    "file-cycle (lib.rs): import cycle between src/bills.rs, src/payments.rs",
                    "    src/bills.rs -> src/payments.rs -> src/bills.rs",
                    "file-cycle (lib.rs): import circle between the rooms of the crate's top level: "
                    "bills.rs, payments.rs",
                    "    bills.rs -> payments.rs: src/bills.rs -> src/payments.rs",
                    "    payments.rs -> bills.rs: src/payments.rs -> src/bills.rs",
                    "2 import cycle(s) or circle(s) of rooms",
                ],
            ),
        )

    def test_clean_crate_passes(self):
        self.assertEqual(
            check("clean"),
            (0, ["no import cycles between files or rooms (1 crates, 6 files)"]),
        )


if __name__ == "__main__":
    unittest.main()
