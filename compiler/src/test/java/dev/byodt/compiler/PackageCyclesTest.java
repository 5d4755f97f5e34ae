package dev.byodt.compiler;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The compiler's packages depend on each other in one direction: no package reaches itself through the
 * packages it imports. Every package is a slice of its own (dtype and dtype.builtin are two), the front
 * door dev.byodt.compiler too.
 */
class PackageCyclesTest {
    private static final String COMPILER = "dev.byodt.compiler";

    /** Each class of the compiler in the slice of its package. */
    private static final SliceAssignment PACKAGES = new SliceAssignment() {
        @Override
        public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
            String name = javaClass.getPackageName();
            return name.equals(COMPILER) || name.startsWith(COMPILER + ".") ? SliceIdentifier.of(name) : SliceIdentifier.ignore();
        }

        @Override
        public String getDescription() { return "the compiler's packages"; }
    };

    @Test
    void noPackageDependsOnItself() {
        JavaClasses classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages(COMPILER);
        slices().assignedFrom(PACKAGES).should().beFreeOfCycles().check(classes);
    }
}
