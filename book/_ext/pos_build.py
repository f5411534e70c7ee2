"""Depois do build: copia para o site o que o navegador precisa e não vai no git.

- MathJax (npm `mathjax`), para a matemática funcionar sem internet;
- o runtime do Pyodide (npm `pyodide`), para os widgets;
- os arquivos Python que os widgets importam no navegador: o brinquedo, o
  formatador, o adaptador dos widgets e as contas de arquitetura (os mesmos
  arquivos que o build usa; nada é reescrito em JavaScript).
"""
import shutil
import sys
from pathlib import Path

RAIZ = Path(__file__).resolve().parents[2]
PYODIDE = ["pyodide.js", "pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm",
           "python_stdlib.zip", "pyodide-lock.json"]
# O que o worker dos widgets (book/_static/widgets/worker.mjs) busca em _static/lab/.
LAB = ["brinquedo.py", "formato.py", "widgets_api.py", "arquitetura.py"]


def copia(saida: Path):
    static = saida / "_static"
    mj = RAIZ / "node_modules" / "mathjax" / "es5"
    if not mj.is_dir():
        sys.exit("Falta node_modules/mathjax: rode `npm ci` (o `make book` já faz isso).")
    shutil.copytree(mj, static / "mathjax", dirs_exist_ok=True)
    py = RAIZ / "node_modules" / "pyodide"
    destino = static / "pyodide"
    destino.mkdir(parents=True, exist_ok=True)
    for nome in PYODIDE:
        if not (py / nome).exists():
            sys.exit(f"Falta node_modules/pyodide/{nome}: rode `npm ci`.")
        shutil.copy2(py / nome, destino / nome)
    lab = static / "lab"
    lab.mkdir(exist_ok=True)
    for nome in LAB:
        shutil.copy2(RAIZ / "lab" / nome, lab / nome)
    (saida / ".nojekyll").write_text("")


if __name__ == "__main__":
    copia(Path(sys.argv[1]))
    print("Runtime do navegador copiado para", sys.argv[1])
