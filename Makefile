# Os dois comandos do README: `make book` e `make test`.
# Numa máquina nova, os dois criam o que precisam (.venv, node_modules, Chromium).
SHELL := /bin/bash
PY    := .venv/bin/python
JB    := .venv/bin/jupyter-book
HTML  := _build/html

.PHONY: book test check trava-rapida setup lock listas corrige bench-listas bench-exercicios bench bench-widgets bench-paginas serve limpa chromium pdf poppler

## Ambiente Python (fixado em requirements.txt; o pacote do livro em modo de desenvolvimento)
## e Node (fixado em package-lock.json)
.venv/.pronto: requirements.txt pyproject.toml
	test -x $(PY) || python3 -m venv .venv
	$(PY) -m pip install --quiet -r requirements.txt
	$(PY) -m pip install --quiet --no-deps --no-build-isolation -e .
	touch $@

## O pyodide-build (só `py-compile` e `lockfile add-wheels`, no fim do build) num ambiente à parte,
## com o Python do Pyodide (3.13): o bytecode que ele compila só vale para essa versão.
## Acha o python3.13 em $$PY313, no PATH ou nas versões do pyenv (o primeiro que roda); sem ele, diz o que instalar.
PY313 ?= $(shell for p in $$(command -v python3.13) $$(ls -d $${PYENV_ROOT:-$$HOME/.pyenv}/versions/3.13*/bin/python3.13 2>/dev/null | sort -rV); do "$$p" -c 'import sys; assert sys.version_info[:2] == (3, 13)' 2>/dev/null && { echo "$$p"; break; }; done)
.venv-pyodide/.pronto: requirements-pyodide.txt
	@if [ -z "$(PY313)" ] || ! "$(PY313)" -c 'import sys; assert sys.version_info[:2] == (3, 13)' 2>/dev/null; then \
	  echo "Falta o Python 3.13 (o do Pyodide dos widgets), para o pyodide-build compilar o bytecode."; \
	  echo "Instale-o (por exemplo: pip install uv && uv python install 3.13, ou pyenv install 3.13)"; \
	  echo "e rode de novo; ou aponte PY313=/caminho/do/python3.13."; exit 1; fi
	test -x .venv-pyodide/bin/python || "$(PY313)" -m venv .venv-pyodide
	.venv-pyodide/bin/python -m pip install --quiet -r requirements-pyodide.txt
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

# O que o PDF e os testes dele pedem ao Debian, com o Chromium: pdftotext, pdffonts e pdftoppm
# (poppler-utils) e todas as fontes que o PDF embute. A serifa e a sem serifa DejaVu nos 4 pesos
# (fonts-dejavu-core: regular e negrito; fonts-dejavu-extra: itálico e o oblíquo, sem os quais o
# Chromium inclinaria a regular) e uma fonte com os caracteres chineses (a página dos tokens
# mostra 猫; sem ela, um quadrado). tests/test_pdf_fontes.py confere que cada fonte do PDF vem
# de um destes pacotes e que nenhuma face foi sintetizada.
PACOTES_PDF := poppler-utils fonts-dejavu-core fonts-dejavu-extra fonts-wqy-microhei
poppler:
	@faltam=$$(for p in $(PACOTES_PDF); do dpkg-query -W -f='$${Status}\n' "$$p" 2>/dev/null | grep -q "ok installed" || echo "$$p"; done); \
	if [ -z "$$faltam" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq $$faltam; \
	elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo apt-get update -qq && sudo apt-get install -y -qq $$faltam; \
	else echo "Falta instalar, para o PDF: $$faltam (pacotes do Debian; rode como root ou com sudo)."; exit 1; fi

## O ciclo rápido (sem build): ruff, os testes que não precisam do livro construído e os doctests
## do formatador. Da trava, só a parte barata: o estado inicial de cada widget contra o lock
## (tests/test_widgets_trava.py). A trava rápida inteira é outro alvo (make trava-rapida); o make
## test a roda também.
## Sem os testes `pesado` (kernels, Node, torch: o make test os roda); tests/test_treino_torch.py
## nem é coletado (importar o torch já custa uns 2 s). O Python guarda o bytecode (__pycache__)
## mesmo onde o ambiente pede que não: sem ele, cada rodada compila tudo de novo (uns 8 s).
check: export PYTHONDONTWRITEBYTECODE =
check: .venv/.pronto
	$(PY) -m ruff check .
	$(PY) -m pytest -q -m "not build and not lento and not pesado" --ignore=tests/lab --ignore=tests/test_treino_torch.py tests
	$(PY) -m doctest lab/livro/formato.py

## A trava rápida: roda as páginas sem o Sphinx (o executor do myst-nb, um kernel novo por página,
## as páginas em paralelo) e compara cada número com o lock. Para quando se mexe em lab/ e ainda não se quer o make book.
trava-rapida: .venv/.pronto
	$(PY) -m livro_ext.trava.rapido

setup: .venv/.pronto node_modules/.pronto .venv-pyodide/.pronto

## O livro inteiro (--all), com todo aviso tratado como erro. No fim do build,
## livro_ext/widgets/pos_build.py (gancho build-finished) põe no site o runtime dos widgets (as fórmulas já saem
## desenhadas do build: livro_ext/tema/matematica.py).
## Localmente as páginas saem do cache de execução quando nem o código delas nem os módulos de
## lab/ que importam mudaram (livro_ext/execucao/chave_cache.py); no CI (CI definido) tudo roda de novo.
## Para forçar aqui: make book LIVRO_EXECUCAO=force
book: setup
	rm -rf _build/html _build/jupyter_execute
	$(JB) build . --all -W -n --keep-going
	@echo ""
	@echo "Livro pronto em $(HTML)/index.html"
	@echo "Para abrir com os widgets: make serve  (e visite http://127.0.0.1:8000)"

## O livro inteiro num PDF A4 (_build/html/livro.pdf, publicado com o site): a página única do
## Sphinx (singlehtml) lida dos doctrees do build acima, sem executar nada de novo, e impressa
## pelo Chromium (livro_ext/pdf/pdf.py). Sem o build, faz o `make book` antes.
pdf: setup chromium poppler
	@test -f _build/.doctrees/environment.pickle -a -f $(HTML)/index.html || $(MAKE) book
	$(PY) -m livro_ext.pdf.pdf

serve:
	$(PY) -m http.server 8000 --bind 127.0.0.1 --directory $(HTML)

## Todos os testes: o build acima, o PDF e depois pytest, Pyodide (node) e navegador; e uma
## amostra fixa das mutações de dev/mutacoes.py (falha se uma escapa dos testes).
## A razão do build é comparada com o lock (no pytest); a trava rápida roda as páginas de novo
## com 1 e com 2 threads no BLAS e no torch: nenhum número impresso pode depender disso.
test: book chromium poppler
	$(PY) -m livro_ext.pdf.pdf
	$(PY) -m ruff check .
	$(PY) -m doctest lab/livro/formato.py
	$(PY) -m livro_ext.trava.razao gerar _build
	$(PY) -m pytest tests
	$(PY) -m livro_ext.trava.rapido --fios 1 --fios 2
	$(PY) dev/mutacoes.py --ci
	node --test tests/js/
	node --test tests/navegador/
	@echo "Todos os testes passaram."

## Aceita, de propósito, os números novos (reescreve book/numeros.lock.json). Os números vêm das
## fontes de agora (a trava rápida roda o código de cada página), nunca de um _build velho;
## o pytest confere que essa razão é a mesma do build.
lock: .venv/.pronto
	$(PY) -m livro_ext.trava.rapido --aceitar

## Listas para quem ensina (a página "Para quem ensina"): a de cada aluno em HTML e PDF, o gabarito
## (HTML, PDF, CSV), os links, o Moodle XML e o QTI 2.1, em _build/listas/$(LISTA)/. A versão de cada
## exercício sai de (LISTA, matrícula, exercício); os mesmos dados dão os mesmos bytes.
##   make listas LISTA=semana-4 TURMA=turma.csv EXERCICIOS=mascaras,bloco-2:3 CONFERIR=nao
##   make listas ALUNOS=30          (sem turma: os alunos 1 a 30)
## E, com os códigos de entrega (um por linha, ou o CSV de um LMS), as notas e os erros da turma:
##   make corrige LISTA=semana-4 TURMA=turma.csv ENTREGAS=entregas.txt
LISTA ?= lista
TURMA ?=
ALUNOS ?= 30
EXERCICIOS ?=
CONFERIR ?= sim
VERSOES ?= 20
SITE ?=
PDF ?= sim
ENTREGAS ?=
QUEM = $(if $(TURMA),--turma "$(TURMA)",--alunos $(ALUNOS))
listas: .venv/.pronto node_modules/.pronto
	$(PY) -m livro.exercicios.listas --lista "$(LISTA)" $(QUEM) --exercicios "$(EXERCICIOS)" --conferir "$(CONFERIR)" \
	  --versoes "$(VERSOES)" --site "$(or $(SITE),$$($(PY) -c 'from livro_ext.pdf.pdf import site_publicado; print(site_publicado())'))"
	@if [ "$(PDF)" = sim ]; then $(MAKE) --no-print-directory chromium poppler && $(PY) -m livro_ext.pdf.listas "_build/listas/$(LISTA)"; fi

corrige: .venv/.pronto
	@test -n "$(ENTREGAS)" || { echo "make corrige: diga o arquivo das entregas, ENTREGAS=entregas.txt"; exit 2; }
	$(PY) -m livro.exercicios.corrige --lista "$(LISTA)" $(QUEM) --entregas "$(ENTREGAS)"

## O ciclo de quem ensina: make listas de 40 alunos com PDFs (≤ 2 min) e make corrige de 300 (≤ 10 s de CPU).
bench-listas: setup chromium poppler
	$(PY) dev/bench_listas.py

## Exercícios conferidos: conferir ≤ 50 ms (p95) depois do runtime pronto; ≤ 15 KB gzip a mais antes de tocar.
bench-exercicios: book chromium
	node dev/bench_exercicios.mjs

## CPU do build limpo forçado e do rebuild depois de mudar um texto, contra os orçamentos.
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
