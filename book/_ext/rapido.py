"""A razão de números sem o Sphinx: roda as células das páginas e compara com o lock.

O `make book` leva minutos; para saber se uma mudança em `lab/` moveu algum número que o
leitor vê, basta rodar o código das páginas. Este script lê cada `book/*.md` (como o
myst-nb lê), executa as células de código em ordem num IPython sem kernel (uma página por
processo, em paralelo), recolhe os glue e as saídas exatamente como o build as grava, e
monta o HTML de cada ```{widget}``` chamando `lab/livro/widgets/api.py` como a diretiva faz.
Depois passa tudo pela mesma regra de `razao.py` (o que entra, o que fica de fora) e
compara com `book/numeros.lock.json`.

    python -m livro_ext.rapido                     # todas as páginas; sai 1 se algo mudou
    python -m livro_ext.rapido book/saida.md       # só estas páginas
    python -m livro_ext.rapido --brinquedo /tmp/b.py   # com outro lab/livro/brinquedo.py
    python -m livro_ext.rapido --json saida.json   # grava a razão rápida

Ele não substitui o `make test`: figuras, texto das páginas e o navegador ficam de fora.
Uma página que falha ao executar aparece como uma linha `! página: erro`.
O teste tests/test_rapido.py confere que a razão rápida é igual à do build.
"""
from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from livro_ext import razao, razao_codigo

RAIZ = razao.RAIZ
PREFIXO_GLUE = "application/papermill.record/"


def paginas(raiz: Path = RAIZ) -> list[Path]:
    """As páginas com código ou widget (menos a própria página da razão)."""
    res = []
    for md in sorted((raiz / "book").glob("*.md")):
        if md.with_suffix("").relative_to(raiz).as_posix() == razao.PAGINA_RAZAO:
            continue
        t = md.read_text(encoding="utf-8")
        if "{code-cell}" in t or "{widget}" in t:
            res.append(md)
    return res


# ---------------------------------------------------------------------------
# Um processo por página: executar como o kernel executaria
# ---------------------------------------------------------------------------
def _executa_pagina(md: Path, brinquedo: str | None) -> dict:
    """Roda as células de uma página -> {"nb": notebook com saídas, "glue": {...}, "widgets": {...},
    "origens": {chave: [n da célula, linha na célula]}}. Roda no processo filho."""
    import io
    import traceback

    os.environ.setdefault("MPLBACKEND", "Agg")
    os.chdir(md.parent)                     # o myst-nb executa na pasta da página
    if brinquedo:                           # outro brinquedo.py, no lugar de livro.brinquedo
        import importlib.util

        import livro

        spec = importlib.util.spec_from_file_location("livro.brinquedo", brinquedo)
        mod = importlib.util.module_from_spec(spec)
        sys.modules["livro.brinquedo"] = mod
        livro.brinquedo = mod
        spec.loader.exec_module(mod)

    from IPython.core.displayhook import DisplayHook
    from IPython.core.displaypub import DisplayPublisher
    from IPython.core.interactiveshell import InteractiveShell
    from myst_nb.core.read import read_myst_markdown_notebook

    saidas: list = []
    origens: dict = {}
    celula_atual = [0]

    class Fluxo(io.TextIOBase):
        def writable(self):
            return True

        def write(self, s):
            if saidas and saidas[-1].get("output_type") == "stream" and saidas[-1]["name"] == "stdout":
                saidas[-1]["text"] += s
            else:
                saidas.append({"output_type": "stream", "name": "stdout", "text": s})
            return len(s)

    class Publicador(DisplayPublisher):
        def publish(self, data, metadata=None, source=None, *, transient=None, update=False, **kw):
            metadata = metadata or {}
            if "scrapbook" in metadata:     # um glue: onde ele foi chamado, na célula
                quadro, linha = sys._getframe(1), None
                while quadro is not None:          # o quadro mais de fora da célula
                    if quadro.f_code.co_filename.startswith("<ipython-input-"):
                        linha = quadro.f_lineno
                    quadro = quadro.f_back
                origens[metadata["scrapbook"]["name"]] = [celula_atual[0], linha]
            saidas.append({"output_type": "display_data", "data": data, "metadata": metadata})

        def clear_output(self, wait=False):
            saidas.clear()

    class Gancho(DisplayHook):
        def write_output_prompt(self):
            pass

        def write_format_data(self, format_dict, md_dict=None):
            saidas.append({"output_type": "execute_result", "data": format_dict,
                           "metadata": md_dict or {}})

        def finish_displayhook(self):
            pass

    class Casca(InteractiveShell):
        displayhook_class = Gancho
        display_pub_class = Publicador

    casca = Casca.instance()
    casca.display_pub = Publicador(shell=casca)
    # figuras: o build mostra uma imagem (que a razão registra como "(figura)"); aqui, sem desenhar
    png = casca.display_formatter.formatters["image/png"]
    png.for_type_by_name("matplotlib.figure", "Figure", lambda fig: "(figura)")

    texto = md.read_text(encoding="utf-8")
    nb = read_myst_markdown_notebook(texto)
    n = 0
    erro = None
    velho = sys.stdout
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        n += 1
        saidas.clear()
        celula_atual[0] = n
        sys.stdout = Fluxo()
        try:
            r = casca.run_cell(cell.source, store_history=True)
        finally:
            sys.stdout = velho
        if r.error_before_exec or r.error_in_exec:
            e = r.error_before_exec or r.error_in_exec
            erro = f"célula {n}: {type(e).__name__}: {e}"
            cell.outputs = []
            break
        cell.outputs = [dict(o) for o in saidas]
    glue = {}
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        fica = []
        for o in cell.get("outputs", []):
            meta = o.get("metadata", {})
            if "scrapbook" not in meta:
                fica.append(o)
                continue
            k = len(meta["scrapbook"].get("mime_prefix", ""))
            glue[meta["scrapbook"]["name"]] = {"data": {m[k:]: v for m, v in o["data"].items()},
                                               "metadata": meta}
            if not k:
                fica.append(o)
        cell.outputs = fica
    widgets = {}
    try:
        from livro.widgets import api as widgets_api

        html = []
        vistos = {}
        for ln in texto.splitlines():
            m = razao_codigo.WIDGET_MD.match(ln)
            if m:
                nome = m.group(2)
                vistos[nome] = vistos.get(nome, 0) + 1
                inst = f"widget-{nome}" + (f"-{vistos[nome]}" if vistos[nome] > 1 else "")
                html.append(widgets_api.widget_html(nome, inst))
        widgets = razao.widgets_no_html("".join(html))
    except Exception:
        erro = erro or "widgets: " + traceback.format_exc(limit=2).strip().splitlines()[-1]
    nb_dict = json.loads(json.dumps(nb, default=str))
    return {"nb": nb_dict, "glue": json.loads(json.dumps(glue, default=str)), "widgets": widgets,
            "origens": origens, "erro": erro}


def _filho(md: str, brinquedo: str | None, saida: str):
    try:
        r = _executa_pagina(Path(md), brinquedo)
    except Exception as e:  # a página não roda: isso é uma diferença, não um travamento
        r = {"erro": f"{type(e).__name__}: {e}"}
    Path(saida).write_text(json.dumps(r, ensure_ascii=False), encoding="utf-8")


# ---------------------------------------------------------------------------
# O processo principal: uma página por processo, em paralelo
# ---------------------------------------------------------------------------
def executar(mds, brinquedo=None, trabalhadores=None, pasta_tmp=None) -> dict:
    """[md] -> {página: resultado de _executa_pagina} (cada página num processo novo)."""
    import tempfile

    mds = [Path(m).resolve() for m in mds]
    trabalhadores = trabalhadores or max(1, min(len(mds), os.cpu_count() or 1))
    tmp = Path(pasta_tmp or tempfile.mkdtemp(prefix="rapido-"))
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONHASHSEED="0", PYDEVD_DISABLE_FILE_VALIDATION="1")

    def roda(md):
        pagina = md.with_suffix("").relative_to(RAIZ).as_posix()
        saida = tmp / (pagina.replace("/", "__") + ".json")
        cmd = [sys.executable, "-m", "livro_ext.rapido", "--filho", str(md), brinquedo or "", str(saida)]
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
        if not saida.exists():
            return pagina, {"erro": (p.stderr or p.stdout).strip()[-500:] or f"saiu com {p.returncode}"}
        return pagina, json.loads(saida.read_text(encoding="utf-8"))

    # as páginas mais lentas primeiro (o laboratório carrega o GPT-2)
    ordem = sorted(mds, key=lambda m: -m.stat().st_size)
    with cf.ThreadPoolExecutor(trabalhadores) as ex:
        res = dict(ex.map(roda, ordem))
    return dict(sorted(res.items()))


def razao_rapida(resultados: dict) -> tuple[dict, list]:
    """Resultados das páginas -> (razão {página: {chave: valor}}, [problemas])."""
    r, problemas = {}, []
    for pagina, res in resultados.items():
        if res.get("erro"):
            problemas.append(f"{pagina}: a página não rodou: {res['erro']}")
        itens = {}
        if "nb" in res:
            itens, _, probs = razao.itens_do_notebook(res["nb"], res.get("glue", {}))
            problemas += [f"{pagina} · {p}" for p in probs]
        itens.update(res.get("widgets", {}))
        if itens:
            r[pagina] = dict(sorted(itens.items()))
    return r, problemas


def comparar(resultados: dict, lock: Path = razao.LOCK) -> list[str]:
    """Linhas de diferença contra o lock (só as páginas rodadas) e problemas (!)."""
    nova, problemas = razao_rapida(resultados)
    linhas = razao.diferencas(razao.ler_lock(lock), nova, set(resultados))
    return ["! " + p for p in problemas] + linhas


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--filho"]:             # o processo de uma página (ver `executar`)
        _filho(*argv[1:4])
        return 0
    ap = argparse.ArgumentParser(description="A razão de números sem o Sphinx.")
    ap.add_argument("paginas", nargs="*", help="book/x.md (padrão: todas)")
    ap.add_argument("--brinquedo", help="um brinquedo.py para usar no lugar de lab/livro/brinquedo.py")
    ap.add_argument("--lock", default=str(razao.LOCK))
    ap.add_argument("--json", help="grava a razão rápida neste arquivo")
    ap.add_argument("-j", type=int, default=None, help="processos em paralelo (padrão: os núcleos)")
    a = ap.parse_args(argv)
    mds = [Path(p) for p in a.paginas] or paginas()
    t0 = time.time()
    res = executar(mds, a.brinquedo and str(Path(a.brinquedo).resolve()), a.j)
    if a.json:
        Path(a.json).write_text(razao.serializa(razao_rapida(res)[0]), encoding="utf-8")
    linhas = comparar(res, Path(a.lock))
    dt = time.time() - t0
    if not linhas:
        print(f"Razão rápida confere com o lock ({len(res)} páginas, {dt:.0f} s).")
        return 0
    print(f"{len(linhas)} diferenças em relação ao lock ({len(res)} páginas, {dt:.0f} s):")
    for ln in linhas:
        print("  " + ln)
    return 1


if __name__ == "__main__":
    sys.exit(main())
