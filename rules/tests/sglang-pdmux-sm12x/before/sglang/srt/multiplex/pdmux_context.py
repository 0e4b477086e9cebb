# Fixture shaped like sglang/srt/multiplex/pdmux_context.py (written for archpatch from the
# lines quoted in sglang issue #32933, not copied): green-context partition granularity by
# compute capability, and the caller that divides the SMs.


def get_arch_constraints(compute_capability):
    major, minor = compute_capability
    # smallest partition and step per architecture
    if major == 6:
        return 1, 1
    elif major == 7:
        return 2, 2
    elif major == 8:
        return 4, 2
    elif major == 9 and minor >= 0:
        return 8, 8
    else:
        raise ValueError(f"Unsupported compute capability: {major}.{minor}")


def divide_sm(total_sms, compute_capability, groups):
    min_per_part, multiple = get_arch_constraints(compute_capability)
    sizes = [x for x in range(min_per_part, total_sms - min_per_part + 1, multiple) if total_sms - x >= 16]
    if not sizes:
        raise ValueError(f"No valid partitions found for total SMs {total_sms}")
    return [(s, total_sms - s) for s in sizes[:groups]]
