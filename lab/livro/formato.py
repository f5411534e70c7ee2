"""Números no formato brasileiro: vírgula decimal, ponto de milhar.

Um só formatador para o livro inteiro (páginas, widgets, notebooks e testes).
Só a biblioteca padrão: roda igual no CPython e no Pyodide.

>>> num(0.3951)
'0,395'
>>> inteiro(50257)
'50.257'
>>> vetor([-0.5, 1.5], 1)
'[-0,5; 1,5]'
>>> tex(-0.739)
'{-}0{,}739'
>>> vetor_min([0.5, -1.0])
'[0,5; -1]'
>>> cientifico(5.88e23)
'5,9 · 10²³'
>>> abreviado(70e9)
'70B'
"""

import math

MENOS = "-"  # hífen-menos ASCII: é o que o leitor copia e cola num código


def _arredonda(x, casas):
    """Arredonda como o leitor espera ver (sem '-0,000')."""
    s = f"{x:.{casas}f}"
    if s.lstrip("-").strip("0.") == "":
        s = s.lstrip("-")
    return s


def num(x, casas=3, sinal=False):
    """Um número real com `casas` decimais e vírgula: 0,395."""
    s = _arredonda(float(x), casas)
    if "." in s:
        inteira, frac = s.split(".")
    else:
        inteira, frac = s, ""
    neg = inteira.startswith("-")
    inteira = inteira.lstrip("-")
    inteira = _milhar(inteira)
    s = ("-" if neg else "") + inteira + ("," + frac if frac else "")
    if sinal and not neg:
        s = "+" + s
    return s.replace("-", MENOS)


def _milhar(digitos):
    grupos = []
    while len(digitos) > 3:
        grupos.insert(0, digitos[-3:])
        digitos = digitos[:-3]
    grupos.insert(0, digitos)
    return ".".join(grupos)


def inteiro(n):
    """Um inteiro com ponto de milhar: 50.257 (e 7.087.872)."""
    n = int(n)
    return ("-" if n < 0 else "") + _milhar(str(abs(n)))


def pct(x, casas=0):
    """Uma fração como porcentagem: 0,666 -> '67%'."""
    return num(100 * x, casas) + "%"


def vetor(v, casas=3):
    """Um vetor entre colchetes, separado por ponto e vírgula: [-0,5; 1,5]."""
    return "[" + "; ".join(num(x, casas) for x in v) + "]"


def tex(x, casas=3):
    """O mesmo número para LaTeX: a vírgula vira {,} e o sinal {-}, para não ganharem espaço."""
    return num(x, casas).replace(",", "{,}").replace("-", "{-}")


def tex_vetor(v, casas=3):
    """Vetor para LaTeX: [-0{,}5;\\ 1{,}5] (o \\ dá o espaço depois do ponto e vírgula)."""
    return "[" + r";\ ".join(tex(x, casas) for x in v) + "]"


def tex_inteiro(n):
    """Inteiro para LaTeX com ponto de milhar: 50{.}257."""
    return inteiro(n).replace(".", "{.}")


def casas_min(x, max_casas=3):
    """Tira zeros à direita: 0,50 -> 0,5; 2,0 -> 2."""
    s = num(x, max_casas)
    if "," in s:
        s = s.rstrip("0").rstrip(",")
    return s


# ---------------------------------------------------------------------------
# Números sem zeros inúteis (pesos e somas exatas do brinquedo)
# ---------------------------------------------------------------------------
def vetor_min(v, max_casas=3):
    """[0; 0; -1; 0,5]: cada coordenada sem zeros à direita."""
    return "[" + "; ".join(casas_min(x, max_casas) for x in v) + "]"


def tex_min(x, parenteses=False, max_casas=3):
    """casas_min para LaTeX; com parenteses=True, um negativo vem entre parênteses: ({-}0{,}5)."""
    s = casas_min(x, max_casas)
    neg = s.startswith(MENOS)
    s = s.replace(",", "{,}").replace(MENOS, "{-}")   # {-}: sinal, não subtração
    return f"({s})" if parenteses and neg else s


def tex_vetor_min(v, max_casas=3):
    """vetor_min para LaTeX: [0;\\ {-}1;\\ 0{,}5]."""
    return "[" + r";\ ".join(tex_min(x, max_casas=max_casas) for x in v) + "]"


# ---------------------------------------------------------------------------
# Células de tabela (páginas e widgets)
# ---------------------------------------------------------------------------
MENOS_INF = MENOS + "∞"  # a máscara causal numa tabela, figura ou widget


def celula(x, casas=3):
    """Um número de tabela: -∞ para a máscara, vírgula decimal para o resto."""
    if x == -math.inf:
        return MENOS_INF
    return num(x, casas)


# ---------------------------------------------------------------------------
# Números grandes e pequenos
# ---------------------------------------------------------------------------
_SOBRESCRITO = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _mantissa_expoente(x, casas):
    e = math.floor(math.log10(abs(x)))
    m = round(x / 10 ** e, casas)
    if abs(m) >= 10:
        m, e = m / 10, e + 1
    return m, e


def cientifico(x, casas=1):
    """5.88e23 -> '5,9 · 10²³'; 1e14 -> '10¹⁴' (mantissa 1 some); 0 -> '0'."""
    if x == 0:
        return "0"
    m, e = _mantissa_expoente(x, casas)
    potencia = "10" + str(e).translate(_SOBRESCRITO)
    return potencia if float(m) == 1 else f"{num(m, casas)} · {potencia}"


def cientifico_tex(x, casas=1):
    """5.88e23 -> '5{,}9 \\cdot 10^{23}' (para dentro de $...$)."""
    if x == 0:
        return "0"
    m, e = _mantissa_expoente(x, casas)
    return f"10^{{{e}}}" if float(m) == 1 else f"{tex(m, casas)} \\cdot 10^{{{e}}}"


def abreviado(x, casas=1, letra=None):
    """Contagens como nos nomes dos modelos: 70e9 -> '70B', 1.4e12 -> '1,4T', 177.2e6 -> '177,2M'.

    B = bilhão (10⁹), T = trilhão (10¹²), M = milhão (10⁶); letra força a unidade ('T': 0,3T).
    """
    unidades = (("T", 1e12), ("B", 1e9), ("M", 1e6))
    if letra is not None:
        return casas_min(x / dict(unidades)[letra], casas) + letra
    for l, fator in unidades:
        if abs(x) >= fator:
            return casas_min(x / fator, casas) + l
    return casas_min(x, casas)


def pct_pequeno(x):
    """Porcentagem que não some: 0,3% com duas casas; abaixo de 0,01%, '< 0,01%'."""
    return pct(x) if x >= 0.01 else ("< " + pct(0.0001, 2) if x < 0.0001 else pct(x, 2))


def bytes_bin(n, casas=1):
    """Memória em unidades binárias: 37748736 -> '36 MiB'; 1536 -> '1,5 KiB'; 512 -> '512 B'.

    KiB = 1024 B, MiB = 1024 KiB, GiB = 1024 MiB (o livro usa só estas, nunca KB/MB).
    """
    for unidade, fator in (("TiB", 2 ** 40), ("GiB", 2 ** 30), ("MiB", 2 ** 20), ("KiB", 2 ** 10)):
        if abs(n) >= fator:
            return f"{casas_min(n / fator, casas)} {unidade}"
    return f"{inteiro(n)} B"


def contagem(n, singular, plural=None):
    """Um inteiro com o substantivo na forma certa: 1 token, 2 tokens, 1.024 tokens."""
    return f"{inteiro(n)} {singular if n == 1 else (plural or singular + 's')}"


def forma(*dims):
    """Uma forma de tensor: forma(5, 4) -> '5 × 4'; forma('n', 50257) -> 'n × 50.257'.

    Inteiros ganham ponto de milhar, letras ficam como estão; os espaços não quebram a linha.
    """
    return "\u00a0×\u00a0".join(inteiro(x) if isinstance(x, int) else str(x) for x in dims)


def potencia10(e):
    """Uma potência de 10 com o expoente em sobrescrito, a partir do expoente inteiro.

    >>> potencia10(-5)
    '10⁻⁵'
    >>> potencia10(23)
    '10²³'
    >>> potencia10(0.5)
    Traceback (most recent call last):
    ...
    TypeError: O expoente precisa ser um inteiro; recebi 0.5.
    """
    if isinstance(e, bool) or not isinstance(e, int):
        raise TypeError(f"O expoente precisa ser um inteiro; recebi {e!r}.")
    return "10" + str(e).translate(_SOBRESCRITO)
