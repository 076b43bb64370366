SHELL := /bin/bash
NPM_FLAGS := --no-audit --no-fund --loglevel=error
STAMP := node_modules/.install-stamp

.PHONY: install build typecheck run test bench bench-quick sandbox docs declarations clean postgres-binaries faketime chromium

# Installs dependencies only when they are missing or package files changed. `npm install` follows the lock file;
# `npm ci` is not used because the npm here writes lock files without entries for other platforms' optional
# binaries (DuckDB bindings, rollup) and then refuses them in `npm ci` as out of sync. `--no-save` keeps npm from
# writing those entries into package-lock.json: `make run` must leave a fresh clone as it was.
NPM_INSTALL := npm install $(NPM_FLAGS) --no-save
$(STAMP): package.json package-lock.json
	$(NPM_INSTALL)
	@touch $(STAMP)

install: $(STAMP)

build: install
	npx tsc -p tsconfig.json

# The tests are type-checked too (vitest strips types without checking them); nothing is emitted.
typecheck: install
	npx tsc -p tsconfig.test.json

run: build
	node bin/seo-etl.js run pipelines/nightly.yaml --sandbox

# The PostgreSQL destination's tests and bench start a throwaway server from these binaries (Debian package).
postgres-binaries:
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15 || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql; }

# The test suite's date guard runs the date-sensitive tests again on another day under libfaketime (Debian package).
faketime:
	@command -v faketime >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq faketime; }

# The report's test opens it in a real headless browser: Debian's Chromium, driven by playwright-core.
chromium:
	@command -v chromium >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; }

test: build typecheck postgres-binaries faketime chromium
	node scripts/test-summary.mjs

bench: build postgres-binaries
	node bin/seo-etl.js bench

bench-quick: build postgres-binaries
	BENCH_QUICK=1 node bin/seo-etl.js bench

sandbox: build
	node bin/seo-etl.js sandbox --port 8090

docs: build
	node bin/seo-etl.js docs

# Every operation of the live API as its official client's models describe them (src/families/generated/), and the
# SERP catalog's models (src/families/serp/models.generated.ts), typed with the specification's integers
# (scripts/facts/integer-fields.json, from the official Python client: scripts/integer-facts.mjs); commit the
# result, then `make docs`.
# test/families/generated.test.ts fails while they and the installed client disagree.
declarations: install
	node scripts/generate-declarations.mjs

clean:
	rm -rf dist data/warehouse.duckdb data/work data/parquet data/raw data/sandbox
