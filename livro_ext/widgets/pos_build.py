"""Fim do build (gancho `build-finished`, registrado em `widgets.py`): põe em `_static/pyodide/` o runtime do
Pyodide (o .wasm e o .asm.js também em pedaços de gzip), a roda do livro e a biblioteca padrão só com o que o
Pyodide importa (`stdlib_usada`), as duas em bytecode do pyodide-build de `.venv-pyodide`, e o `manifesto.json`,
a única lista do que o navegador busca. O porquê: README e CONTRIBUINDO.md.

    python -m livro_ext.widgets.pos_build _build/html   # ou --manifesto (as listas), --roda PASTA (tests/js)
"""
import gzip
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from ..execucao import guardado

from . import navegador, offline

RAIZ = Path(__file__).resolve().parents[2]
PYODIDE = RAIZ / "node_modules" / "pyodide"
BIN = RAIZ / ".venv-pyodide" / "bin"
PACOTE = "livro"
VERSAO = "1.0.0"
MODULOS = {"api": "livro.widgets.api", "formato": "livro.formato"}  # os que o worker importa
PEDACO = 512 * 1024  # bytes comprimidos por pedaço do .wasm
DATA = (2020, 1, 1, 0, 0, 0)  # a data de todo arquivo que escrevemos em zip (build reprodutível)
EPOCA = "1577836800"  # a mesma data: SOURCE_DATE_EPOCH da roda e do py-compile (.pyc com o hash da fonte)
# O Pyodide no Node: os arquivos da biblioteca padrão que ele importa ao iniciar, instalar a roda e importar widgets.
USADOS = """const { loadPyodide } = await import("pyodide");
const [pasta, api] = process.argv.slice(1);
const py = await loadPyodide({ lockFileURL: pasta + "/pyodide-lock.json", packageBaseUrl: pasta + "/" });
await py.loadPackage("livro", { messageCallback: () => {} });
console.log(JSON.stringify(py.runPython(`import importlib, sys
importlib.import_module("${api}").importar_todos()
z = "/lib/python%d%d.zip/" % sys.version_info[:2]
sorted({m.__file__[len(z):] for m in list(sys.modules.values()) if (getattr(m, "__file__", None) or "").startswith(z)})
`).toJs()));
"""


def arquivos_da_roda():
    """(arquivo no disco, nome na roda, como "livro/widgets/api.py"), do fecho dos imports (navegador.py)."""
    return [(navegador.BASE / nome, nome) for nome in navegador.modulos_navegador()]


def stdlib_usada(pasta: Path) -> list[str]:
    """Os arquivos da biblioteca padrão que o Pyodide importa com a roda e o lock de `pasta` (USADOS)."""
    r = subprocess.run(["node", "--input-type=module", "-e", USADOS, str(pasta), MODULOS["api"]], cwd=RAIZ,
                       capture_output=True, text=True)
    if r.returncode:
        raise SystemExit(f"o Pyodide no Node não listou a biblioteca padrão dos widgets:\n{r.stdout}{r.stderr}")
    return json.loads(r.stdout.splitlines()[-1])


def _zip(destino: Path, arquivos) -> Path:
    """Um zip sem compressão (o gzip do todo comprime melhor), com datas fixas; `arquivos`: (nome, bytes)."""
    with zipfile.ZipFile(destino, "w") as out:
        for nome, dados in arquivos:
            out.writestr(zipfile.ZipInfo(nome, date_time=DATA), dados)
    return destino


def _roda(comando, erro: str) -> None:
    r = subprocess.run([str(c) for c in comando], capture_output=True, text=True,
                       env=dict(os.environ, SOURCE_DATE_EPOCH=EPOCA))
    if r.returncode:
        raise SystemExit(f"{erro}:\n{r.stdout}{r.stderr}")


def escreve_roda(pasta: Path) -> Path:
    """A roda pura (py3-none-any) do setuptools (`pip wheel` sobre um pyproject mínimo) com as fontes do navegador."""
    fonte = pasta / "fonte"
    for origem, nome in arquivos_da_roda():
        (fonte / nome).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(origem, fonte / nome)
    # a fonte só tem o que o navegador usa: o setuptools acha os pacotes, e cada arquivo deles vai na roda
    (fonte / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n'
        f'[project]\nname = "{PACOTE}"\nversion = "{VERSAO}"\n[tool.setuptools.package-data]\n"*" = ["*"]\n',
        encoding="utf-8")
    _roda([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-index", "--no-build-isolation",
           "--wheel-dir", pasta, fonte], "pip wheel falhou na roda do livro")
    return next(pasta.glob("*.whl"))


def _cli(prog: str, *args) -> None:
    """`pyodide` (o pyodide-build) ou `wheel`, de .venv-pyodide."""
    _roda([BIN / prog, *args], f"{prog} {args[0]} falhou")


def info_do_pyodide() -> dict:
    return json.loads((PYODIDE / "pyodide-lock.json").read_text(encoding="utf-8"))["info"]


def roda_e_lock(pasta: Path) -> dict:
    """A roda compilada, o lock dela e a biblioteca padrão enxuta, em `pasta`: {"roda", "lock", "stdlib"}."""
    pasta = Path(pasta)
    pasta.mkdir(parents=True, exist_ok=True)
    info = info_do_pyodide()
    alvo = ".".join(info["python"].split(".")[:2])
    base = json.dumps({"info": info, "packages": {}}).encode()
    fontes = [(nome, origem.read_bytes()) for origem, nome in arquivos_da_roda()]
    # guardado pelo hash da entrada (guardado.py): construir custa uns 7 s de CPU
    entrada = [RAIZ / "requirements-pyodide.txt", RAIZ / "requirements.txt", PYODIDE / "package.json",
               PYODIDE / "python_stdlib.zip", Path(__file__), Path(guardado.__file__)]
    k = guardado.chave("pyodide-build", json.dumps([n for n, _ in fontes]), *(d for _, d in fontes), base, alvo,
                       *(arq.read_bytes() for arq in entrada))
    partes = {n: guardado.ler("pyodide", f"{k}.{n}") for n in ("roda", "stdlib", "lock")}
    if None in partes.values():
        with tempfile.TemporaryDirectory() as tmp:
            partes = _compila(Path(tmp), base, alvo)
        for n, dados in partes.items():   # o lock por último: com ele, o resto está lá
            guardado.guardar("pyodide", f"{k}.{n}", dados)
    nome_roda = json.loads(partes["lock"])["packages"][PACOTE]["file_name"]
    feitos = {"roda": pasta / nome_roda, "lock": pasta / "pyodide-lock.json", "stdlib": pasta / "python_stdlib.zip"}
    for n, arq in feitos.items():
        arq.write_bytes(partes[n])
    return feitos


def _compila(tmp: Path, base: bytes, alvo: str) -> dict:
    """A roda registrada num lock só com ela e compilada; a biblioteca padrão que ela usa, compilada (bytes)."""
    if not (BIN / "pyodide").exists() or not (BIN / f"python{alvo}").exists():
        raise SystemExit(f"Falta o pyodide-build com o Python {alvo} do Pyodide (o bytecode só vale para ele) em "
                         ".venv-pyodide: rode `make setup` (com outro Python lá, apague .venv-pyodide antes).")
    pasta = tmp / "roda"
    pura = escreve_roda(pasta)
    (tmp / "base.json").write_bytes(base)
    _cli("pyodide", "lockfile", "add-wheels", "--input", tmp / "base.json", "--output", pasta / "pyodide-lock.json",
         "--base-path", pasta, pura)
    _cli("pyodide", "py-compile", "--silent", "--no-keep", "--compression-level", 9, pasta)
    # O py-compile deixa a tag py3-none-any, o RECORD dos .py e a hora do build: o `wheel pack` refaz a roda.
    lock = json.loads((pasta / "pyodide-lock.json").read_text(encoding="utf-8"))
    roda = pasta / lock["packages"][PACOTE]["file_name"]
    aberta = tmp / "aberta" / f"{PACOTE}-{VERSAO}"
    with zipfile.ZipFile(roda) as z:
        z.extractall(aberta)
    for arq in aberta.rglob("*"):
        arq.chmod(0o755 if arq.is_dir() else 0o644)
    wheel = aberta / f"{PACOTE}-{VERSAO}.dist-info" / "WHEEL"
    tag = roda.name.removesuffix(".whl").split("-", 2)[2]
    texto, n = re.subn(r"^Tag: .*$", f"Tag: {tag}", wheel.read_text(encoding="utf-8"), flags=re.M)
    assert n == 1, f"o WHEEL da roda tem {n} tags"
    wheel.write_text(texto, encoding="utf-8")
    roda.unlink()
    _cli("wheel", "pack", aberta, "--dest-dir", pasta)
    lock["packages"][PACOTE]["sha256"] = hashlib.sha256(roda.read_bytes()).hexdigest()
    (pasta / "pyodide-lock.json").write_text(json.dumps(lock), encoding="utf-8")
    with zipfile.ZipFile(PYODIDE / "python_stdlib.zip") as z:
        zip_ = _zip(tmp / "python_stdlib.zip", [(n, z.read(n)) for n in sorted(stdlib_usada(pasta))])
    _cli("pyodide", "py-compile", "--silent", "--no-keep", "--compression-level", 0, zip_)
    with zipfile.ZipFile(zip_) as z:   # as datas fixas de volta no zip da biblioteca
        arquivos = [(n, z.read(n)) for n in z.namelist()]
    _zip(zip_, arquivos)
    return {"roda": roda.read_bytes(), "stdlib": zip_.read_bytes(), "lock": json.dumps(lock).encode()}


def _item(caminho: Path, static: Path) -> dict:
    dados = caminho.read_bytes()
    return {"url": caminho.relative_to(static).as_posix(), "bytes": len(dados), "hash": offline.hash_curto(dados)}


def _gzip_guardado(dados: bytes) -> bytes:
    """gzip -9 com mtime 0, guardado pelo hash da entrada (guardado.py): comprimir o .wasm custa segundos."""
    k = guardado.chave("gzip -9, mtime 0", dados)
    gz = guardado.ler("gzip", k)
    if gz is None:
        gz = gzip.compress(dados, compresslevel=9, mtime=0)
        guardado.guardar("gzip", k, gz)
    return gz


def copia(saida: Path) -> dict:
    saida = Path(saida)
    static = saida / "_static"
    destino = static / "pyodide"
    shutil.rmtree(destino, ignore_errors=True)
    destino.mkdir(parents=True)
    for nome in ["pyodide.mjs", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"]:
        if not (PYODIDE / nome).exists():
            raise SystemExit(f"Falta node_modules/pyodide/{nome}: rode `npm ci`.")

    def copiado(nome):
        shutil.copy2(PYODIDE / nome, destino / nome)
        return _item(destino / nome, static)

    def em_pedacos(nome):  # o worker guarda cada pedaço no Cache API: uma recarga continua de onde parou
        gz = _gzip_guardado((PYODIDE / nome).read_bytes())
        pedacos = [destino / f"{nome}.gz.{n}" for n in range(-(-len(gz) // PEDACO))]
        for n, p in enumerate(pedacos):
            p.write_bytes(gz[n * PEDACO:(n + 1) * PEDACO])
        return [_item(p, static) for p in pedacos]

    wasm = (PYODIDE / "pyodide.asm.wasm").read_bytes()
    feitos = roda_e_lock(destino)
    (destino / "python_stdlib.zip.gz").write_bytes(_gzip_guardado(feitos["stdlib"].read_bytes()))
    manifesto = {
        "pyodide": json.loads((PYODIDE / "package.json").read_text(encoding="utf-8"))["version"],
        "python": json.loads(feitos["lock"].read_text(encoding="utf-8"))["info"]["python"],
        # os inteiros, para os navegadores sem DecompressionStream
        "wasm": {"pedacos": em_pedacos("pyodide.asm.wasm"), "bytes": len(wasm), "hash": offline.hash_curto(wasm),
                 "inteiro": copiado("pyodide.asm.wasm")},
        "asm": {"pedacos": em_pedacos("pyodide.asm.js"), "inteiro": copiado("pyodide.asm.js")},
        "mjs": copiado("pyodide.mjs"),
        "stdlib": {"gz": _item(destino / "python_stdlib.zip.gz", static), "inteiro": _item(feitos["stdlib"], static)},
        "lock": _item(feitos["lock"], static),
        "roda": dict(_item(feitos["roda"], static), pacote=PACOTE),
        "modulos": MODULOS,
    }
    todos = [*manifesto["wasm"]["pedacos"], *manifesto["asm"]["pedacos"], manifesto["mjs"], manifesto["stdlib"]["gz"],
             manifesto["lock"], manifesto["roda"]]
    # a versão (o nome do worker compartilhado) sai também do worker.mjs, com o hash de cada módulo nos imports
    modulos = offline.versiona_modulos(static / "widgets")
    codigo_worker = (static / "widgets" / "worker.mjs").read_bytes()
    manifesto["versao"] = offline.hash_curto("".join(i["hash"] for i in todos).encode() + codigo_worker)
    manifesto["bytes_antes_da_resposta"] = sum(i["bytes"] for i in todos)
    (destino / "manifesto.json").write_text(json.dumps(manifesto, indent=1, ensure_ascii=False), encoding="utf-8")
    (saida / ".nojekyll").write_text("")
    offline.escreve(saida, manifesto, modulos)
    return manifesto


def ao_fim_do_build(app, excecao):
    """Só no site que deu certo; sem node_modules ou .venv-pyodide, avisa (no `make book`, -W: erro) e segue."""
    if excecao is None and app.builder.name == "html":
        try:
            copia(Path(app.outdir))
        except SystemExit as e:
            from sphinx.util import logging
            logging.getLogger(__name__).warning(f"runtime do navegador não copiado: {e}")


if __name__ == "__main__":
    if sys.argv[1:] == ["--manifesto"]:
        print(json.dumps({"lab": [n for _, n in arquivos_da_roda()], "pacote": PACOTE, "modulos": MODULOS}))
    elif sys.argv[1:2] == ["--roda"]:
        print(json.dumps({k: str(v) for k, v in roda_e_lock(Path(sys.argv[2])).items()}))
    else:
        m = copia(Path(sys.argv[1]))
        print("Runtime do navegador copiado para", sys.argv[1], f"(versão {m['versao']})")
