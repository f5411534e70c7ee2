"""Fim do build: põe no site o que o navegador precisa e não vai no git.

Roda como gancho `build-finished` do Sphinx (registrado em `widgets.py`), então um
`jupyter-book build .` simples já dá um site completo. Também roda à mão:
``python book/_ext/pos_build.py _build/html``; ``--manifesto`` só imprime as listas;
``--stdlib destino.zip`` só escreve o zip enxuto da biblioteca padrão.

O que copia ou gera em `_static/`:

- `mathjax/` (npm `mathjax`), para a matemática funcionar sem internet;
- `pyodide/`: o runtime do Python dos widgets (npm `pyodide`), enxuto:
  - `pyodide.mjs` como vem;
  - `pyodide.asm.wasm` e `pyodide.asm.mjs` comprimidos com gzip e cortados em pedaços
    (`pyodide.asm.wasm.gz.N`): o worker guarda cada pedaço no Cache API do
    navegador, então uma recarga continua de onde parou, e nenhum servidor
    precisa saber o tipo `application/wasm` nem comprimir nada;
    os arquivos inteiros ficam ao lado, para navegadores sem `DecompressionStream`;
  - a biblioteca padrão só com os módulos que os widgets usam (a lista
    `STDLIB_WIDGETS.txt`, ao lado deste arquivo; `tests/js/pyodide.test.mjs` roda
    todos os casos dos widgets contra este zip e confere que a lista basta), em
    `python_stdlib.zip.gz` (gzip de um zip sem compressão) e `python_stdlib.zip`;
  - nenhum `pyodide-lock.json`: os widgets não carregam pacote nenhum;
- `lab/`: os arquivos Python que os widgets importam (os mesmos que o build usa);
- `lab/manifesto.json`: a única lista do que o navegador busca (nome, bytes,
  hash), lida pelo worker, pelos testes e pelo benchmark.
"""
import gzip
import hashlib
import io
import json
import shutil
import sys
import zipfile
from pathlib import Path

RAIZ = Path(__file__).resolve().parents[2]
AQUI = Path(__file__).resolve().parent
PYODIDE = RAIZ / "node_modules" / "pyodide"

# Os arquivos Python do livro que o navegador roda (a única lista; o worker a lê do manifesto).
LAB = ["formato.py", "brinquedo.py", "arquitetura.py", "widgets_campos.py", "widgets_html.py",
       "widgets_passos.py", "widgets_geracao.py", "widgets_escala.py", "widgets_api.py"]
PEDACO = 512 * 1024  # bytes comprimidos por pedaço do .wasm


def stdlib_widgets():
    """Os arquivos da biblioteca padrão que os widgets usam (um por linha, # comenta)."""
    linhas = (AQUI / "STDLIB_WIDGETS.txt").read_text(encoding="utf-8").splitlines()
    return [s.strip() for s in linhas if s.strip() and not s.lstrip().startswith("#")]


def stdlib_enxuta(destino: Path, origem: Path = PYODIDE / "python_stdlib.zip", comprimido=True) -> Path:
    """Escreve o zip da biblioteca padrão só com os arquivos de `stdlib_widgets()`.

    comprimido=False: entradas sem compressão (o arquivo inteiro vai depois por gzip, que
    comprime melhor o conjunto do que o deflate comprime cada entrada)."""
    quero = stdlib_widgets()
    modo = zipfile.ZIP_DEFLATED if comprimido else zipfile.ZIP_STORED
    with zipfile.ZipFile(origem) as z:
        tem = set(z.namelist())
        faltam = [n for n in quero if n not in tem]
        if faltam:
            raise SystemExit(f"STDLIB_WIDGETS.txt cita arquivos que o Pyodide não tem: {faltam}")
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as out:
            for nome in sorted(quero):
                info = zipfile.ZipInfo(nome, date_time=(2020, 1, 1, 0, 0, 0))
                info.compress_type = modo
                out.writestr(info, z.read(nome), compresslevel=9 if comprimido else None)
    destino.write_bytes(buf.getvalue())
    return destino


def _hash(dados: bytes) -> str:
    return hashlib.sha256(dados).hexdigest()[:12]


def _item(caminho: Path, static: Path) -> dict:
    dados = caminho.read_bytes()
    return {"url": caminho.relative_to(static).as_posix(), "bytes": len(dados), "hash": _hash(dados)}


def _gzip_guardado(dados: bytes) -> bytes:
    """gzip -9 de `dados` (mtime=0: sempre os mesmos bytes), guardado em node_modules/.cache
    pelo hash da entrada: o .wasm não muda entre builds, e comprimi-lo custa segundos de CPU."""
    pasta = RAIZ / "node_modules" / ".cache" / "livro-gzip"
    guardado = pasta / (hashlib.sha256(dados).hexdigest() + ".gz")
    if guardado.is_file():
        return guardado.read_bytes()
    gz = gzip.compress(dados, compresslevel=9, mtime=0)
    try:
        pasta.mkdir(parents=True, exist_ok=True)
        temp = guardado.with_suffix(".tmp")
        temp.write_bytes(gz)
        temp.replace(guardado)
    except OSError:
        pass  # sem onde guardar: só comprime de novo na próxima vez
    return gz


def copia(saida: Path) -> dict:
    saida = Path(saida)
    static = saida / "_static"
    mj = RAIZ / "node_modules" / "mathjax" / "es5"
    if not mj.is_dir():
        raise SystemExit("Falta node_modules/mathjax: rode `npm ci` (o `make book` já faz isso).")
    shutil.copytree(mj, static / "mathjax", dirs_exist_ok=True)

    destino = static / "pyodide"
    if destino.exists():
        shutil.rmtree(destino)
    destino.mkdir(parents=True)
    for nome in ["pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip"]:
        if not (PYODIDE / nome).exists():
            raise SystemExit(f"Falta node_modules/pyodide/{nome}: rode `npm ci`.")
    for nome in ["pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm"]:
        shutil.copy2(PYODIDE / nome, destino / nome)
    def em_pedacos(nome):
        gz = _gzip_guardado((PYODIDE / nome).read_bytes())
        pedacos = []
        for n, i in enumerate(range(0, len(gz), PEDACO)):
            p = destino / f"{nome}.gz.{n}"
            p.write_bytes(gz[i:i + PEDACO])
            pedacos.append(_item(p, static))
        return pedacos

    wasm = (PYODIDE / "pyodide.asm.wasm").read_bytes()
    pedacos = em_pedacos("pyodide.asm.wasm")
    pedacos_asm = em_pedacos("pyodide.asm.mjs")
    stdlib_enxuta(destino / "python_stdlib.zip")
    cru = stdlib_enxuta(destino / "python_stdlib.stored.zip", comprimido=False)
    (destino / "python_stdlib.zip.gz").write_bytes(_gzip_guardado(cru.read_bytes()))
    cru.unlink()

    lab = static / "lab"
    if lab.exists():
        shutil.rmtree(lab)
    lab.mkdir()
    for nome in LAB:
        shutil.copy2(RAIZ / "lab" / nome, lab / nome)

    versao = json.loads((PYODIDE / "package.json").read_text(encoding="utf-8"))["version"]
    manifesto = {
        "pyodide": versao,
        # o .wasm: pedaços do gzip (em ordem) e, para quem não descomprime, o arquivo inteiro
        "wasm": {"pedacos": pedacos, "bytes": len(wasm), "hash": _hash(wasm),
                 "inteiro": _item(destino / "pyodide.asm.wasm", static)},
        "asm": {"pedacos": pedacos_asm, "inteiro": _item(destino / "pyodide.asm.mjs", static)},
        "mjs": _item(destino / "pyodide.mjs", static),
        # a biblioteca padrão enxuta: gzip de um zip sem compressão e, para quem não descomprime, o zip
        "stdlib": {"gz": _item(destino / "python_stdlib.zip.gz", static),
                   "inteiro": _item(destino / "python_stdlib.zip", static)},
        "lab": [dict(_item(lab / nome, static), nome=nome) for nome in LAB],
        # sem pyodide-lock.json (119 KB): um lock sem pacotes, com o "info" do Pyodide fixado
        "lock_info": json.loads((PYODIDE / "pyodide-lock.json").read_text(encoding="utf-8"))["info"],
    }
    todos = [*pedacos, *pedacos_asm, manifesto["mjs"], manifesto["stdlib"]["gz"], *manifesto["lab"]]
    manifesto["versao"] = _hash("".join(i["hash"] for i in todos).encode())
    manifesto["bytes_antes_da_resposta"] = sum(i["bytes"] for i in todos)
    (lab / "manifesto.json").write_text(json.dumps(manifesto, indent=1, ensure_ascii=False), encoding="utf-8")
    (saida / ".nojekyll").write_text("")
    return manifesto


def ao_fim_do_build(app, excecao):
    """Gancho `build-finished` do Sphinx: só no HTML e só se o build deu certo.

    Sem node_modules (uma cópia do livro só para ver as páginas), avisa e segue: o site
    sai sem widgets vivos, e o worker diz isso ao leitor. No `make book`, o aviso vira erro (-W).
    """
    if excecao is None and app.builder.format == "html":
        try:
            copia(Path(app.outdir))
        except SystemExit as e:
            from sphinx.util import logging
            logging.getLogger(__name__).warning(f"runtime do navegador não copiado: {e}")


if __name__ == "__main__":
    if sys.argv[1:] == ["--manifesto"]:
        print(json.dumps({"lab": LAB, "stdlib": stdlib_widgets()}))
    elif sys.argv[1:2] == ["--stdlib"]:  # só o zip enxuto (para tests/js/pyodide.test.mjs)
        print(stdlib_enxuta(Path(sys.argv[2])))
    else:
        m = copia(Path(sys.argv[1]))
        print("Runtime do navegador copiado para", sys.argv[1], f"(versão {m['versao']})")
