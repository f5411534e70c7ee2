# Os dois comandos do README: `make book` e `make test`.
# Numa máquina nova, os dois criam o que precisam (.venv, node_modules, Chromium).
SHELL := /bin/bash
PY    := .venv/bin/python
JB    := .venv/bin/jupyter-book
HTML  := _build/html

.PHONY: book test check setup lock bench bench-widgets bench-paginas serve limpa chromium

## Ambiente Python (fixado em requirements.txt) e Node (fixado em package-lock.json)
.venv/.pronto: requirements.txt
	test -x $(PY) || python3 -m venv .venv
	$(PY) -m pip install --quiet -r requirements.txt
	touch $@

node_modules/.pronto: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

# Chromium para os testes de navegador: $CHROMIUM, se apontar um executável; senão o do Debian,
# instalado com apt (como root, como no CI, ou com sudo). Sem os dois, diz o que fazer.
CHROMIUM ?= $(shell command -v chromium 2>/dev/null || echo /usr/bin/chromium)
export CHROMIUM
chromium:
	@if [ -x "$(CHROMIUM)" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq chromium; \
	elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo apt-get update -qq && sudo apt-get install -y -qq chromium; \
	else echo "Falta o Chromium: instale o pacote 'chromium' ou aponte CHROMIUM=/caminho/do/chromium."; exit 1; fi

## O ciclo rápido (sem build): ruff, os testes que não precisam do livro construído e a trava
## rápida (roda o código das páginas sem o Sphinx e compara cada número com o lock).
check: .venv/.pronto
	$(PY) -m ruff check .
	$(PY) -m pytest -q -m "not build and not lento" --ignore=tests/lab tests
	cd lab && ../$(PY) -m doctest formato.py
	$(PY) book/_ext/rapido.py

setup: .venv/.pronto node_modules/.pronto

## O livro inteiro, executado do zero (--all), com todo aviso tratado como erro. No fim do build,
## book/_ext/pos_build.py (gancho build-finished) põe no site o MathJax e o runtime dos widgets.
book: setup
	rm -rf _build/html _build/jupyter_execute
	$(JB) build . --all -W -n --keep-going
	@echo ""
	@echo "Livro pronto em $(HTML)/index.html"
	@echo "Para abrir com os widgets: make serve  (e visite http://127.0.0.1:8000)"

serve:
	$(PY) -m http.server 8000 --bind 127.0.0.1 --directory $(HTML)

## Todos os testes: o build acima e depois pytest, Pyodide (node) e navegador.
test: book chromium
	$(PY) -m ruff check .
	$(PY) book/_ext/razao.py gerar _build
	$(PY) -m pytest tests
	node --test tests/js/
	node --test tests/navegador/
	@echo "Todos os testes passaram."

## Aceita, de propósito, os números novos (reescreve book/numeros.lock.json).
lock:
	$(PY) book/_ext/razao.py gerar _build
	$(PY) book/_ext/razao.py aceitar _build

bench: setup
	$(PY) dev/bench_build.py

## Widgets: bytes do runtime (cru e gzip), frio × morno, rede lenta, respostas; cada orçamento "dentro" ou "FORA".
bench-widgets: book chromium
	node dev/bench_widgets.mjs $(HTML)

## Páginas: peso antes de interagir, Lighthouse (mobile, servido com gzip) e primeiro texto numa
## rede de celular; cada orçamento "dentro" ou "FORA".
bench-paginas: book chromium
	CHROME_PATH=$(CHROMIUM) node dev/bench_paginas.mjs $(HTML)

limpa:
	rm -rf _build
