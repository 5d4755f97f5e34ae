package dev.byodt.compiler.dtype;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BlockChoiceTest {
    private static BlockDatatypeName named(String name) { return DatatypeName.parseBlock(name).orElseThrow(); }

    @Test
    void theFirstMatchingDtypeMapEntryDecidesAScalarOneIncluded() {
        BlockChoice choice = new BlockChoice(Optional.of(named("mxfp4")),
            DatatypeChoice.parseOverrides("fc1=bfloat16,fc*=block[fxp8_6,32,e8m0,rceil],conv?=mxint8"), BlockChoice.Accumulation.FLOAT32);
        assertEquals(Optional.empty(), choice.forNode("fc1", List.of("h")));
        assertEquals(Optional.of(named("block[fxp8_6,32,e8m0,rceil]")), choice.forNode("fc2", List.of("h")));
        assertEquals(Optional.of(named("mxint8")), choice.forNode("node", List.of("conv3")), "an output tensor's name matches too");
        assertEquals(Optional.of(named("mxfp4")), choice.forNode("attention", List.of("scores")));
        assertEquals(List.of(named("mxfp4"), named("block[fxp8_6,32,e8m0,rceil]"), named("mxint8")), choice.blockNames());
    }

    @Test
    void aScalarDtypeWithBlockEntriesInItsMapComputesSomeNodesInBlocks() {
        BlockChoice mapped = new BlockChoice(Optional.empty(), DatatypeChoice.parseOverrides("fc*=nvfp4"), BlockChoice.Accumulation.FLOAT32);
        assertTrue(mapped.any());
        assertEquals(Optional.empty(), mapped.forNode("conv1", List.of()));
        assertFalse(new BlockChoice(Optional.empty(), DatatypeChoice.parseOverrides("fc*=fxp16_8"), BlockChoice.Accumulation.FLOAT32).any());
    }

    @Test
    void accumulationModesAreFloat32AndDtype() {
        assertEquals(BlockChoice.Accumulation.DTYPE, BlockChoice.Accumulation.parse("dtype"));
        assertEquals(BlockChoice.Accumulation.FLOAT32, BlockChoice.Accumulation.parse("float32"));
    }
}
