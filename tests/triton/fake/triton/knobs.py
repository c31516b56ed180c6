"""knobs.py (fake triton): the compilation knobs, with Triton 3.6's
`listener` attribute."""


class compilation_knobs:
    listener = None


compilation = compilation_knobs()
