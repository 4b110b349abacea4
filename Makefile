# Every target works on a fresh clone: `make run` installs what it needs first.
SHELL := /bin/bash
.PHONY: run test test-embedded test-pg pg migrate ingest ingest-companies embed expire seed bench eval-resumes eval-fields lint install schema browser console-screenshots

# The layers' import rules (.dependency-cruiser.cjs): bin/ → api/ → jobs/ → ingest/ → sql/ → seeds/, no cycles
DEPCRUISE := npx depcruise --config .dependency-cruiser.cjs bin api jobs ingest sql seeds test

node_modules: package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch node_modules

install: node_modules

## Set up and serve on the embedded database with demo data (http://localhost:8080)
run: node_modules
	npm start

## The tests, on the embedded database and, when TEST_DATABASE_URL is set, on that server
test: node_modules
	npx tsc --noEmit
	$(DEPCRUISE)
	npx ava
	@if [ -n "$$TEST_DATABASE_URL" ]; then echo "make test: again on the embedded database"; env -u TEST_DATABASE_URL npx ava; fi

## Debian's Chromium, for the console's browser tests (test/console/browser.test.ts skips without it)
browser:
	@command -v chromium >/dev/null || command -v chromium-browser >/dev/null || { $(if $(filter 0,$(shell id -u)),,sudo) apt-get update && $(if $(filter 0,$(shell id -u)),,sudo) env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; }

## Refresh the console's screenshots in docs/console from a browser test run
console-screenshots: node_modules
	CONSOLE_SCREENSHOTS=docs/console npx ava test/console/browser.test.ts

## Make the machine's Postgres usable for tests (installs pgvector if missing; lets 127.0.0.1 connect for replication, for the replica tests)
pg:
	bash sql/provision-pg.sh

migrate: node_modules
	npm run migrate

## Regenerate sql/schema.sql from the migrations (a scratch database on DATABASE_URL's server, or the local one)
schema: node_modules
	bash sql/dump-schema.sh

## make ingest FILE=postings.jsonl [WAIT_FOR_VECTORS=1] [ARGS='--format nhs-jobs ...']
ingest: node_modules
	@test -n "$(FILE)" || { echo "usage: make ingest FILE=path/to/postings.jsonl [WAIT_FOR_VECTORS=1] [ARGS='...']"; exit 2; }
	npm run --silent ingest -- "$(FILE)" $(if $(WAIT_FOR_VECTORS),--wait-for-vectors) $(ARGS)

## Company profiles on their own: creates or updates companies by slug
ingest-companies: node_modules
	@test -n "$(FILE)" || { echo "usage: make ingest-companies FILE=path/to/companies.json"; exit 2; }
	npm run --silent ingest -- "$(FILE)" --companies

## Give every job and every parsed resume a vector of the configured model (missing ones, and another model's after a change)
embed: node_modules
	npm run --silent embed

expire: node_modules
	npm run --silent expire

## make seed JOBS=100000 > postings.jsonl
seed: node_modules
	@npm run --silent seed -- --jobs $(or $(JOBS),1000)

bench: node_modules
	npm run --silent bench

## Field-level precision, recall and F1 of the resume parser on a generated corpus (and on RESUMES=dir with truth.jsonl)
eval-resumes: node_modules
	node --import tsx test/eval/resumes.ts $(if $(RESUMES),--real $(RESUMES))

## Ingest's fields, stated pay and duplicate merges against the hand labels of test/fixtures (SHARED_DATASETS=dir; skipped without the shared files)
eval-fields: node_modules
	node --import tsx test/eval/fields.ts $(if $(MISSES),--misses)
	node --import tsx test/eval/salaries.ts $(if $(MISSES),--misses)
	node --import tsx test/eval/duplicates.ts $(if $(MISSES),--misses)

lint: node_modules
	npx tsc --noEmit
	$(DEPCRUISE)
