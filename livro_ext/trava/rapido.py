"""A trava rápida: roda as páginas como o build (o leitor e o cliente de execução do myst-nb, um
kernel novo por página, as páginas em paralelo), sem o Sphinx, e compara com o lock (CONTRIBUINDO.md).

    python -m livro_ext.trava.rapido                     # todas as páginas; sai 1 se algo mudou
    python -m livro_ext.trava.rapido book/saida.md       # só estas páginas
    python -m livro_ext.trava.rapido --brinquedo /tmp/b.py   # com outro lab/livro/brinquedo.py
    python -m livro_ext.trava.rapido --aceitar           # o `make lock`
"""
from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import os
import re
import sys
import time
from pathlib import Path

from . import razao, razao_codigo

RAIZ = razao.RAIZ


def paginas(raiz: Path = RAIZ) -> list[Path]:
    """As páginas com código ou widget (a da razão não tem)."""
    return [md for md in sorted((raiz / "book").glob("*.md"))
            if re.search(r"\{(code-cell|widget)\}", md.read_text(encoding="utf-8"))]


# Uma célula a mais, depois das da página (sai antes da razão): o que o kernel carregou (o
# relatório de --fios) e quantas threads o torch usa.
CONSULTA = ("import json as _j, sys as _s\n"
            "print(_j.dumps({'usa': sorted(m for m in ('numpy', 'torch') if m in _s.modules),\n"
            "                'fios_torch': _s.modules['torch'].get_num_threads() if 'torch' in _s.modules else None}))")


def info_da_consulta(celula) -> dict:
    """O JSON que a célula CONSULTA imprimiu ({} se nada), com os pedaços do stdout juntados."""
    saida = "".join(o["text"] for o in celula.get("outputs", [])
                    if o.get("output_type") == "stream" and o.get("name") == "stdout")
    return json.loads(saida) if saida.strip() else {}


class _Registro(list):
    """O logger que o cliente do myst-nb recebe: guarda os avisos (no build, com -W, são erros)."""

    def info(self, msg, *args, **kw):
        pass

    def warning(self, msg, *args, **kw):
        self.append(str(msg))

    debug, error = info, warning


def config_execucao(raiz: Path = RAIZ):
    """A configuração do myst-nb do build (o _config.yml), em `force` e sem levantar (a falha vira `!`)."""
    import dataclasses

    from jupyter_book.config import get_final_config
    from myst_nb.core.config import NbParserConfig

    conf, _ = get_final_config(user_yaml=raiz / "_config.yml", cli_config={"latex_individualpages": False},
                               sourcedir=raiz, validate=False)
    campos = {c.name for c in dataclasses.fields(NbParserConfig)}
    nb = NbParserConfig(**{k[3:]: v for k, v in conf.items() if k.startswith("nb_") and k[3:] in campos})
    return nb.copy(execution_mode="force", execution_raise_on_error=False)


def _erro_da_execucao(nb, meta: dict) -> str:
    """'célula N: Tipo: mensagem' da célula que falhou (ou a última linha do traceback)."""
    for n, cell in enumerate([c for c in nb.cells if c.cell_type == "code"], 1):
        for o in cell.get("outputs", []):
            if o.get("output_type") == "error":
                return f"célula {n}: {o.get('ename')}: {o.get('evalue')}"
    linhas = (meta.get("traceback") or meta.get("error") or "a execução falhou").strip().splitlines()
    return linhas[-1]


def _executa_pagina(md: Path) -> dict:
    """Roda uma página -> {"nb" (com as saídas), "glue", "html_widgets", "erro", "usa"}, como o build."""
    import traceback

    import nbformat
    from myst_nb.core.execute import create_client
    from myst_nb.core.read import read_myst_markdown_notebook

    texto = md.read_text(encoding="utf-8")
    nb = read_myst_markdown_notebook(texto)
    nb.cells.append(nbformat.v4.new_code_cell(CONSULTA))
    registro = _Registro()
    with create_client(nb, str(md), config_execucao(), registro) as cliente:
        glue = cliente.glue_data
        meta = cliente.exec_metadata or {}
    nb = cliente.notebook
    consulta = nb.cells.pop()
    erro = None if meta.get("succeeded") else _erro_da_execucao(nb, meta)
    info = info_da_consulta(consulta)
    fios = os.environ.get("LIVRO_FIOS")
    if not erro and fios and info.get("fios_torch") not in (None, int(fios)):
        erro = f"o torch usou {info['fios_torch']} threads, não {fios}"
    if not erro and registro:
        erro = "aviso do myst-nb: " + "; ".join(registro)
    html = ""
    try:            # os widgets, como a diretiva os põe na página
        from livro.widgets import api as widgets_api

        html = "".join(widgets_api.widget_html(nome, widgets_api.id_do_widget(nome, vez))
                       for _, nome, vez, _ in razao_codigo.widgets_no_fonte(texto))
    except Exception:
        erro = erro or "widgets: " + traceback.format_exc(limit=2).strip().splitlines()[-1]
    return {"nb": json.loads(json.dumps(nb, default=str)), "glue": json.loads(json.dumps(glue, default=str)),
            "html_widgets": html, "erro": erro, "usa": info.get("usa", [])}


_STDERR = None     # o arquivo para onde vai o stderr deste processo de trabalho (e dos kernels)


# O kernel não respondeu antes da 1ª célula (visto 1 vez, com 2 kernels partindo juntos): a página roda de novo.
PARTIDA_FALHOU = ("Kernel didn't respond", "Kernel died before replying to kernel_info")


def _roda_pagina(md: str) -> dict:
    inicio = os.fstat(2).st_size if _STDERR else 0
    try:
        try:
            return _executa_pagina(Path(md))
        except RuntimeError as e:
            if not str(e).startswith(PARTIDA_FALHOU):
                raise
            print(f"[rapido] {md}: o kernel não partiu ({e}); a página roda de novo", file=sys.stderr)
            return _executa_pagina(Path(md))
    except Exception as e:  # a página não roda: isso é uma diferença, não um travamento
        erro = f"{type(e).__name__}: {e}"
        if _STDERR:         # o que o kernel disse antes de morrer
            with open(_STDERR, "rb") as f:
                f.seek(inicio)
                ditas = [ln for ln in f.read().decode(errors="replace").splitlines()
                         if ln.strip() and "without encryption" not in ln]
            erro += "".join(f"\n    {ln}" for ln in ditas[-3:])
        return {"erro": erro}


def troca_brinquedo(arquivo: str):
    """`livro.brinquedo` passa a ser `arquivo`; se ele quebra ao carregar, quebra na célula que o usa."""
    import importlib.util
    import types

    spec = importlib.util.spec_from_file_location("livro.brinquedo", arquivo)
    modulo = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(modulo)
    except Exception as e:  # o erro do brinquedo, seja qual for, vai para a página
        erro = e

        class Quebrado(types.ModuleType):
            def __getattr__(self, nome):
                if nome.startswith("__"):
                    raise AttributeError(nome)
                raise RuntimeError(f"o brinquedo {arquivo} não carregou: {erro!r}") from erro

        modulo = Quebrado("livro.brinquedo")
    sys.modules["livro.brinquedo"] = modulo


# O kernel de cada página faz a troca num arquivo de início do IPython (profile_default/startup),
# numa IPYTHONDIR temporária que `executar` grava e que o kernel herda pelo ambiente.
INICIO_KERNEL = ("import os\nfrom livro_ext.trava.rapido import troca_brinquedo\n"
                 'troca_brinquedo(os.environ["LIVRO_BRINQUEDO"])\n')


def _prepara(env: dict, stderr: str):
    """O começo de cada processo de trabalho: o ambiente dos kernels, o brinquedo e o stderr num arquivo."""
    global _STDERR
    os.environ.update(env)
    if env.get("LIVRO_BRINQUEDO"):
        troca_brinquedo(env["LIVRO_BRINQUEDO"])
    _STDERR = f"{stderr}-{os.getpid()}.log"
    os.dup2(os.open(_STDERR, os.O_WRONLY | os.O_CREAT | os.O_APPEND), 2)


# As threads do BLAS (OpenBLAS, MKL) e do torch; OPENBLAS_CORETYPE e OPENBLAS_L2_SIZE ficam como estão.
FIOS_ENV = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def executar(mds, brinquedo=None, trabalhadores=None, fios=None) -> dict:
    """[md] -> {página: resultado de _executa_pagina}, um processo de trabalho por núcleo. fios: as
    threads do BLAS e do torch (None: o padrão da máquina; a célula CONSULTA confere)."""
    import multiprocessing
    import tempfile

    mds = [Path(m).resolve() for m in mds]
    trabalhadores = trabalhadores or max(1, min(len(mds), os.cpu_count() or 1))
    env = {"MPLBACKEND": "Agg", "PYTHONHASHSEED": "0", "PYDEVD_DISABLE_FILE_VALIDATION": "1"}
    if fios:
        env.update({v: str(fios) for v in FIOS_ENV}, LIVRO_FIOS=str(fios))
    # as páginas mais lentas primeiro (o laboratório carrega o GPT-2)
    ordem = sorted(mds, key=lambda m: -m.stat().st_size)
    res = {}
    with tempfile.TemporaryDirectory(prefix="rapido-") as tmp:
        if brinquedo:
            inicio = Path(tmp) / "ipython" / "profile_default" / "startup"
            inicio.mkdir(parents=True)
            (inicio / "00-brinquedo.py").write_text(INICIO_KERNEL, encoding="utf-8")
            env.update(IPYTHONDIR=str(Path(tmp) / "ipython"), LIVRO_BRINQUEDO=str(Path(brinquedo).resolve()))
        with cf.ProcessPoolExecutor(trabalhadores, mp_context=multiprocessing.get_context("spawn"),
                                    initializer=_prepara, initargs=(env, f"{tmp}/stderr")) as ex:
            futuros = {md: ex.submit(_roda_pagina, str(md)) for md in ordem}
            for md, f in futuros.items():
                pagina = md.with_suffix("").relative_to(RAIZ).as_posix()
                try:
                    res[pagina] = f.result()
                except Exception as e:      # o processo de trabalho morreu
                    res[pagina] = {"erro": f"{type(e).__name__}: {e}"}
    return dict(sorted(res.items()))


def comparar(resultados: dict, lock: Path = razao.LOCK) -> list[str]:
    """Linhas de diferença contra o lock (só as páginas rodadas) e problemas (!)."""
    nova, problemas = razao.coletar_resultados(resultados)
    linhas = razao.diferencas(razao.ler_lock(lock), nova, set(resultados))
    return ["! " + p for p in problemas] + linhas


def main(argv=None):
    ap = argparse.ArgumentParser(description="A razão de números sem o Sphinx.")
    ap.add_argument("paginas", nargs="*", help="book/x.md (padrão: todas)")
    ap.add_argument("--brinquedo", help="um brinquedo.py para usar no lugar de lab/livro/brinquedo.py")
    ap.add_argument("--lock", default=str(razao.LOCK))
    ap.add_argument("-j", type=int, default=None, help="processos em paralelo (padrão: os núcleos)")
    ap.add_argument("--fios", type=int, action="append",
                    help="threads do BLAS e do torch; repetido (--fios 1 --fios 2), roda uma vez com cada "
                         "e exige a mesma razão em todas")
    ap.add_argument("--aceitar", action="store_true",
                    help="grava a razão rápida (das fontes de agora) no lock: o `make lock`")
    a = ap.parse_args(argv)
    mds = [Path(p) for p in a.paginas] or paginas()
    brinq = a.brinquedo and str(Path(a.brinquedo).resolve())
    t0 = time.time()
    if a.aceitar:
        return aceitar(executar(mds, brinq, a.j), Path(a.lock), parcial=bool(a.paginas))
    codigo = 0
    for fios in a.fios or [None]:
        res = executar(mds, brinq, a.j, fios=fios)
        linhas = comparar(res, Path(a.lock))
        como = f"{len(res)} páginas, {time.time() - t0:.0f} s"
        if fios:
            como += f", {fios} thread{'s' if fios > 1 else ''} no BLAS e no torch"
            usam = [p for p, r in res.items() if r.get("usa")]
            print(f"{len(usam)} páginas usam numpy ou torch: {', '.join(usam)}")
        if linhas:
            codigo = 1
            razao.relata(f"{len(linhas)} diferenças em relação ao lock ({como}):", linhas)
        else:
            print(f"Razão rápida confere com o lock ({como}).")
    return codigo


def aceitar(resultados: dict, lock: Path = razao.LOCK, parcial=False) -> int:
    """Grava no lock a razão rápida (parcial: só a das páginas rodadas); recusa se há problemas."""
    nova, problemas = razao.coletar_resultados(resultados)
    if problemas:
        razao.relata(f"{len(problemas)} problemas; o lock não foi mudado:", ["! " + p for p in problemas])
        return 1
    velha = razao.ler_lock(lock)
    final = {p: v for p, v in velha.items() if parcial and p not in resultados} | nova
    mudou = razao.diferencas(velha, final)
    lock.write_text(razao.serializa(dict(sorted(final.items()))), encoding="utf-8")
    razao.relata(f"{lock} atualizado com a razão das fontes de agora ({len(mudou)} mudanças):", mudou)
    return 0


if __name__ == "__main__":
    sys.exit(main())
