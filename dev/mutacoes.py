"""Mutações de uma linha: os testes (e a trava) pegam cada uma?

Cada mutação (a tabela está em `dev/mutacoes_lista.py`) troca um trecho de um arquivo numa cópia
do repositório (uma constante, um operador, um índice, uma borda, uma coordenada) e pergunta
aos juízes, nesta ordem, até um pegar:

1. os testes do alvo (os de RAPIDOS; no formatador, antes, os doctests de formato.py);
2. o resto dos testes do `make check` (os que não precisam do build);
3. a trava: para o brinquedo e o formatador, a trava rápida (`python -m livro_ext.trava.rapido`, o
   código de todas as páginas contra o lock; uns 25 s de CPU, por isso só quando os testes não
   pegaram, ou sempre com --trava-sempre); para os widgets, o estado inicial de cada widget
   contra o lock (um décimo de segundo: roda sempre). O exportador de notebooks, a conferência
   do PDF, a própria comparação do lock e o tema do site não têm trava: só os testes.

Uma mutação "escapa" se nenhum juiz a nota; o script sai com 1 se alguma escapa. A cópia recebe
o pacote `livro` (lab/) e o `livro_ext` (livro_ext/) pelo PYTHONPATH, na frente dos instalados.

    python dev/mutacoes.py                      # todos os alvos, todos os juízes (meia hora ou mais)
    python dev/mutacoes.py --alvo widgets       # um alvo (brinquedo, formato, widgets, notebooks, pdf, razao,
                                                #  treino, exercicios, tema)
    python dev/mutacoes.py --so-testes          # sem a trava rápida
    python dev/mutacoes.py -k desenho           # só as mutações com "desenho" no nome
    python dev/mutacoes.py --ci                 # o make test: uma amostra fixa por alvo, só os testes do alvo
    python dev/mutacoes.py --escreve            # roda tudo e reescreve a tabela do CONTRIBUINDO.md
    python dev/mutacoes.py --alvo pdf --escreve # roda um alvo e reescreve a linha dele
    python dev/mutacoes.py --lista              # confere a tabela e conta as mutações (sem rodar nada)
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RAIZ = Path(__file__).resolve().parents[1]
PY = sys.executable


def _carrega_lista():
    """dev/mutacoes_lista.py, pelo caminho (dev/ não é um pacote)."""
    spec = importlib.util.spec_from_file_location("mutacoes_lista", Path(__file__).with_name("mutacoes_lista.py"))
    modulo = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(modulo)
    return modulo.TABELAS


TABELAS = _carrega_lista()
ALVOS = list(TABELAS)
# Os testes de cada alvo: o primeiro juiz (e o único no --ci). Todos rodam sem o build.
RAPIDOS = {
    "brinquedo": ["test_brinquedo.py", "test_brinquedo_bordas.py", "test_widgets_brinquedo.py",
                  "test_widgets_trava.py"],
    "formato": ["test_formato.py", "test_widgets_trava.py", "test_widgets_brinquedo.py"],
    "widgets": ["test_widgets_trava.py", "test_widgets_desenho.py", "test_widgets_brinquedo.py",
                "test_widgets_ids.py", "test_recusa.py", "test_interface_pt.py", "test_widgets_hostis.py"],
    "notebooks": ["test_notebooks_unidade.py", "test_notebooks.py"],
    "pdf": ["test_pdf_confere.py", "test_pdf.py", "test_pdf_leitor.py"],
    "razao": ["test_razao.py", "test_widgets_trava.py", "test_rapido.py", "test_trava_comparacao.py"],
    "treino": ["test_treino.py", "test_treino_adam.py", "test_treino_widget.py", "test_exercicios_treino.py"],
    "exercicios": ["test_exercicios.py", "test_exercicios_treino.py", "test_dicas_saida.py", "test_dicas_passos.py",
                   "test_listas.py", "test_lms.py"],
    "listas": ["test_lista.py", "test_listas.py", "test_corrige.py"],
    "tema": ["test_tema.py", "test_referencias_ptbr.py", "test_html_valido.py", "test_leve.py", "test_figuras_svg.py"],
}
DOCTESTS = {"formato": "lab/livro/formato.py"}
TRAVA = {"brinquedo": "rapida", "formato": "rapida", "widgets": "widgets", "treino": "widgets", "exercicios": "widgets"}
AMOSTRA_CI = 3          # mutações por alvo no --ci (sempre as mesmas: a semente é o nome do alvo)
MARCA = "not build and not lento and not pesado"  # a do make check
IGNORAR = shutil.ignore_patterns(".git", ".venv", ".venv-pyodide", "node_modules", "_build", "__pycache__",
                                 ".pytest_cache", ".ruff_cache", "*.ipynb", "pyodide", "mathjax")
CONTRIBUINDO = RAIZ / "CONTRIBUINDO.md"
INICIO, FIM = "<!-- mutacoes: tabela escrita por dev/mutacoes.py --escreve -->", "<!-- mutacoes: fim -->"


# ---------------------------------------------------------------------------
# A tabela
# ---------------------------------------------------------------------------
def mutacoes(alvo: str, k: str = "") -> list[tuple[str, str, str, str]]:
    """[(arquivo, nome, antes, depois)] de um alvo, com `k` no nome."""
    return [(arq, *m) for arq, ms in TABELAS[alvo].items() for m in ms if k.lower() in m[0].lower()]


def amostra_ci(alvo: str) -> list[tuple[str, str, str, str]]:
    """A amostra fixa do --ci: AMOSTRA_CI mutações do alvo, sorteadas com o nome do alvo por semente."""
    todas = mutacoes(alvo)
    return random.Random(alvo).sample(todas, min(AMOSTRA_CI, len(todas)))


def aplica(texto: str, antes: str, depois: str, arquivo: str) -> str:
    n = texto.count(antes)
    if n != 1:
        raise SystemExit(f"mutação inválida: o trecho {antes[:70]!r} aparece {n} vezes em {arquivo}; "
                         "atualize dev/mutacoes_lista.py")
    return texto.replace(antes, depois)


def confere_tabela(raiz: Path = RAIZ) -> list[str]:
    """Os problemas da tabela: trecho que não aparece uma vez só, mutação sem efeito, nome repetido."""
    problemas = []
    for alvo in ALVOS:
        nomes = set()
        for arq, nome, antes, depois in mutacoes(alvo):
            texto = (raiz / arq).read_text(encoding="utf-8")
            n = texto.count(antes)
            if n != 1:
                problemas.append(f"{alvo} · {nome}: o trecho aparece {n} vezes em {arq}: {antes[:70]!r}")
            elif antes == depois:
                problemas.append(f"{alvo} · {nome}: a mutação não muda nada")
            if (arq, nome) in nomes:
                problemas.append(f"{alvo} · {nome}: nome repetido em {arq}")
            nomes.add((arq, nome))
    return problemas


# ---------------------------------------------------------------------------
# A cópia e os juízes
# ---------------------------------------------------------------------------
# O livro_ext da cópia (livro_ext/), na frente do instalado: um sitecustomize no
# PYTHONPATH (vale também nos kernels que a trava rápida abre).
_LIVRO_EXT = """import importlib.util, sys


class _LivroExtDaCopia:
    @staticmethod
    def find_spec(nome, caminho=None, alvo=None):
        if nome == "livro_ext":
            return importlib.util.spec_from_file_location(
                "livro_ext", "{ext}/__init__.py", submodule_search_locations=["{ext}"])
        return None


sys.meta_path.insert(0, _LivroExtDaCopia)
"""


def prepara_repo(tmp: Path) -> tuple[Path, dict]:
    """Uma cópia do repositório (sem build, .git e ambientes; .venv e node_modules por link) e o
    ambiente que a usa: lab/ e livro_ext/ na frente do pacote instalado."""
    repo = tmp / "repo"
    shutil.copytree(RAIZ, repo, ignore=IGNORAR)
    for nome in (".venv", "node_modules"):
        if (RAIZ / nome).exists():
            (repo / nome).symlink_to(RAIZ / nome)
    for nb in RAIZ.glob("lab/*.ipynb"):      # o notebook do laboratório (gerado; as páginas o leem)
        shutil.copy2(nb, repo / "lab" / nb.name)
    # alguns testes listam os arquivos do repositório com o git: um repositório vazio basta
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    (repo / ".git" / "info" / "exclude").write_text(".venv\nnode_modules\n", encoding="utf-8")
    pacotes = tmp / "pacotes"
    pacotes.mkdir()
    (pacotes / "sitecustomize.py").write_text(_LIVRO_EXT.format(ext=str(repo / "livro_ext")), encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(repo / "lab"), str(pacotes)]),
               LIVRO_BUILD=str(tmp / "sem-build"), PYTHONDONTWRITEBYTECODE="1")
    return repo, env


def pytest(repo: Path, env: dict, arquivos: list[str]) -> tuple[bool, str]:
    """(falhou?, o primeiro teste que falhou) dos arquivos de teste na cópia."""
    if not arquivos:
        return False, ""
    r = subprocess.run([PY, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "--no-header", "-p",
                        "no:warnings", "-m", MARCA, *arquivos], cwd=repo, env=env, capture_output=True,
                       text=True, timeout=900, check=False)
    if r.returncode in (0, 5):           # 5: nenhum teste escolhido
        return False, ""
    falha = next((ln for ln in r.stdout.splitlines() if ln.startswith(("FAILED", "ERROR"))), "")
    return True, (falha.split(" ", 1)[-1] or r.stdout.strip()[-120:] or r.stderr.strip()[-120:])[:110]


def juiz_testes(alvo: str, repo: Path, env: dict, ci: bool) -> tuple[bool, str]:
    """Os doctests, os testes do alvo e (fora do --ci) o resto do make check."""
    if alvo in DOCTESTS:
        r = subprocess.run([PY, "-m", "doctest", DOCTESTS[alvo]], cwd=repo, env=env, capture_output=True,
                           text=True, timeout=120, check=False)
        if r.returncode != 0:
            return True, f"doctest de {DOCTESTS[alvo]}"
    pegou, falha = pytest(repo, env, [f"tests/{t}" for t in RAPIDOS[alvo]])
    if pegou or ci:
        return pegou, falha
    return pytest(repo, env, resto_do_check(repo, alvo))


def resto_do_check(repo: Path, alvo: str) -> list[str]:
    """Os outros testes do make check (menos o desta tabela, que não julga o código)."""
    return [f"tests/{p.name}" for p in sorted((repo / "tests").glob("test_*.py"))
            if p.name not in RAPIDOS[alvo] and p.name != "test_mutacoes.py"]


# Roda na cópia: o estado inicial de cada widget de cada página, como rapido.py o monta.
_WIDGETS_DA_TRAVA = """
import json, sys
from pathlib import Path
raiz = Path(sys.argv[1])
from livro_ext.trava import razao, razao_codigo, razao_texto, rapido   # o livro vem da cópia (PYTHONPATH)
from livro.widgets import api
lock = razao.ler_lock(raiz / "book" / "numeros.lock.json")
difs = []
for md in rapido.paginas(raiz):
    pagina = md.with_suffix("").relative_to(raiz).as_posix()
    html = []
    for _, nome, vez, _ in razao_codigo.widgets_no_fonte(md.read_text(encoding="utf-8")):
        try:
            html.append(api.widget_html(nome, api.id_do_widget(nome, vez)))
        except Exception as e:
            difs.append(f"! {pagina} · widget:{nome}: {type(e).__name__}: {e}")
    novos = razao_texto.widgets_no_html("".join(html))
    velhos = {k: v for k, v in lock.get(pagina, {}).items() if k.startswith("widget:")}
    difs += [f"~ {pagina} · {k}" for k in sorted(set(novos) | set(velhos)) if novos.get(k) != velhos.get(k)]
print(json.dumps(difs, ensure_ascii=False))
"""


def juiz_trava(alvo: str, repo: Path, env: dict) -> tuple[bool, list[str]]:
    """(pegou?, linhas de diferença) da trava na cópia."""
    if TRAVA[alvo] == "widgets":
        r = subprocess.run([PY, "-c", _WIDGETS_DA_TRAVA, str(repo)], cwd=repo, env=env, capture_output=True,
                           text=True, timeout=300, check=False)
        if r.returncode != 0:
            return True, [f"! a trava dos widgets não rodou: {(r.stderr or r.stdout).strip()[-150:]}"]
        linhas = json.loads(r.stdout)
        return bool(linhas), linhas
    r = subprocess.run([PY, "-m", "livro_ext.trava.rapido"], cwd=repo, env=env, capture_output=True, text=True,
                       timeout=1800, check=False)
    linhas = [ln.strip() for ln in r.stdout.splitlines()[1:] if ln.strip()]
    return r.returncode != 0, linhas or [r.stdout.strip()[-150:]]


# ---------------------------------------------------------------------------
# Uma rodada
# ---------------------------------------------------------------------------
def roda_alvo(alvo: str, escolhidas: list, repo: Path, env: dict, a) -> dict:
    """Roda as mutações de um alvo -> placar {mutacoes, testes, trava, so_trava, escapam, trava_rodou}."""
    originais = {arq: (RAIZ / arq).read_text(encoding="utf-8") for arq, *_ in escolhidas}
    for arq, _, antes, depois in escolhidas:        # todas válidas antes de começar
        aplica(originais[arq], antes, depois, arq)
    usa_trava = alvo in TRAVA and not a.so_testes and not a.ci
    pegou, falha = juiz_testes(alvo, repo, env, a.ci)
    if pegou:
        raise SystemExit(f"{alvo}: os testes falham sem mutação nenhuma: {falha}")
    if usa_trava:
        pegou, linhas = juiz_trava(alvo, repo, env)
        if pegou:
            raise SystemExit(f"{alvo}: a trava acusa diferença sem mutação:\n" + "\n".join(linhas[:20]))
    placar = {"mutacoes": 0, "testes": 0, "trava": 0, "so_trava": 0, "escapam": 0,
              "trava_rodou": usa_trava, "trava_sempre": usa_trava and (TRAVA[alvo] == "widgets" or a.trava_sempre)}
    for arq, nome, antes, depois in escolhidas:
        (repo / arq).write_text(aplica(originais[arq], antes, depois, arq), encoding="utf-8")
        try:
            pt, falha = juiz_testes(alvo, repo, env, a.ci)
            pl, linhas = False, []
            if usa_trava and (placar["trava_sempre"] or not pt):
                pl, linhas = juiz_trava(alvo, repo, env)
        finally:
            (repo / arq).write_text(originais[arq], encoding="utf-8")
        placar["mutacoes"] += 1
        placar["testes"] += pt
        placar["trava"] += pl
        placar["so_trava"] += pl and not pt
        placar["escapam"] += not (pt or pl)
        onde = ([f"testes ({falha.split('::')[-1][:60]})"] if pt else []) + \
            ([f"trava ({len(linhas)} diferenças, ex.: {linhas[0][:60]})"] if pl else [])
        print(f"  {'pega  ' if pt or pl else 'ESCAPA'} {Path(arq).name}: {nome}: {'; '.join(onde) or 'ninguém nota'}",
              flush=True)
    return placar


def arquivos_do_alvo(alvo: str) -> str:
    """Os arquivos do alvo na tabela: o nome (`campos.py`), ou a pasta e o nome quando dois
    arquivos do alvo têm o mesmo nome (`livro/treino.py`, `widgets/treino.py`)."""
    nomes = [Path(a).name for a in TABELAS[alvo]]
    return ", ".join(f"`{'/'.join(Path(a).parts[-2:]) if nomes.count(Path(a).name) > 1 else Path(a).name}`"
                     for a in TABELAS[alvo])


def tabela_md(placares: dict) -> str:
    """A tabela do CONTRIBUINDO.md, das contagens de uma rodada completa."""
    linhas = ["| alvo | arquivos | mutações | os testes pegam | a trava pega (sozinha) | escapam |",
              "|---|---|---|---|---|---|"]
    for alvo, p in placares.items():
        arquivos = arquivos_do_alvo(alvo)
        if not p["trava_rodou"]:
            trava = "sem trava"
        elif p["trava_sempre"]:
            trava = f"{p['trava']} ({p['so_trava']})"
        else:
            trava = f"só onde os testes falham: ({p['so_trava']})"
        linhas.append(f"| {alvo} | {arquivos} | {p['mutacoes']} | {p['testes']} | {trava} | {p['escapam']} |")
    return "\n".join(linhas)


def escreve_tabela(placares: dict, arquivo: Path = CONTRIBUINDO) -> None:
    """Reescreve as linhas dos alvos rodados; as dos outros ficam como estavam (ou "não rodado")."""
    texto = arquivo.read_text(encoding="utf-8")
    i, f = texto.index(INICIO) + len(INICIO), texto.index(FIM)
    velhas = {ln.split("|")[1].strip(): ln for ln in texto[i:f].splitlines() if ln.startswith("| ")}
    novas = dict(zip(placares, tabela_md(placares).splitlines()[2:]))
    linhas = tabela_md({}).splitlines()
    for alvo in ALVOS:
        linhas.append(novas.get(alvo) or velhas.get(alvo) or
                      f"| {alvo} | {arquivos_do_alvo(alvo)} | "
                      f"{len(mutacoes(alvo))} | não rodado | não rodado | não rodado |")
    arquivo.write_text(texto[:i] + "\n" + "\n".join(linhas) + "\n" + texto[f:], encoding="utf-8")


def tabela_escrita(arquivo: Path = CONTRIBUINDO) -> dict:
    """{alvo: (arquivos, mutações)} da tabela que está no CONTRIBUINDO.md (tests/test_mutacoes.py)."""
    texto = arquivo.read_text(encoding="utf-8")
    corpo = texto[texto.index(INICIO) + len(INICIO):texto.index(FIM)]
    return {m.group(1): (m.group(2), int(m.group(3)))
            for m in re.finditer(r"^\| (\w+) \| ([^|]+) \| (\d+) \|", corpo, re.M)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--alvo", choices=ALVOS + ["todos"], default="todos")
    ap.add_argument("-k", default="", help="só as mutações com este trecho no nome")
    ap.add_argument("--so-testes", action="store_true", help="não roda a trava")
    ap.add_argument("--trava-sempre", action="store_true",
                    help="a trava rápida em toda mutação (não só nas que os testes não pegam)")
    ap.add_argument("--ci", action="store_true", help="a amostra fixa de cada alvo, só os testes do alvo")
    ap.add_argument("--escreve", action="store_true", help="reescreve a tabela do CONTRIBUINDO.md")
    ap.add_argument("--lista", action="store_true", help="confere a tabela e conta, sem rodar nada")
    a = ap.parse_args(argv)
    problemas = confere_tabela()
    if problemas:
        print("A tabela de mutações (dev/mutacoes_lista.py) não bate com os arquivos:\n  " + "\n  ".join(problemas))
        return 2
    alvos = ALVOS if a.alvo == "todos" else [a.alvo]
    if a.lista:
        for alvo in alvos:
            print(f"{alvo}: {len(mutacoes(alvo))} mutações ({', '.join(TABELAS[alvo])}); "
                  f"amostra do CI: {'; '.join(m[1] for m in amostra_ci(alvo))}")
        return 0
    if a.escreve and (a.k or a.ci or a.so_testes):
        ap.error("--escreve precisa da rodada completa de cada alvo: sem -k, --ci nem --so-testes")
    placares, t0 = {}, time.time()
    with tempfile.TemporaryDirectory(prefix="mut-") as t:
        repo, env = prepara_repo(Path(t))
        for alvo in alvos:
            escolhidas = amostra_ci(alvo) if a.ci else mutacoes(alvo, a.k)
            if not escolhidas:
                continue
            print(f"{alvo}: {len(escolhidas)} mutações" + (" (a amostra do CI)" if a.ci else ""), flush=True)
            placares[alvo] = roda_alvo(alvo, escolhidas, repo, env, a)
    print()
    for alvo, p in placares.items():
        trava = f", trava {p['trava']} (sozinha {p['so_trava']})" if p["trava_rodou"] else ""
        print(f"{alvo}: {p['mutacoes']} mutações; testes {p['testes']}{trava}; escapam {p['escapam']}")
    escapam = sum(p["escapam"] for p in placares.values())
    print(f"{sum(p['mutacoes'] for p in placares.values())} mutações, {escapam} escapam "
          f"({time.time() - t0:.0f} s).")
    if a.escreve:
        escreve_tabela(placares)
        print(f"Tabela reescrita em {CONTRIBUINDO.name}.")
    return 1 if escapam else 0


if __name__ == "__main__":
    sys.exit(main())
